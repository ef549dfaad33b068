package palace

import "testing"

// A request to the memory at a query's opening is read off it; content,
// and a verb with no word of the request after it, are left as they are.
func TestRequestContent(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		{"Find memories about the user's dog", "the user's dog"},
		{"Search notes for information on the billing database", "the billing database"},
		{"What do you remember about pets?", "pets?"},
		{"Look up any information on the deploy", "the deploy"},
		{"Please find anything related to the Q3 roadmap", "the Q3 roadmap"},
		{"Can you search your memory for Ana's birthday?", "Ana's birthday?"},
		{"What information do we have on the billing service?", "the billing service?"},
		{"Any notes on the retro: action items", "the retro: action items"},
		{"Do you remember when we moved to Denver?", "when we moved to Denver?"},
		{"Is there anything about flaky tests", "flaky tests"},
		{"Tell me what you know about the API gateway", "what you know about the API gateway"},
		{"Tell me about the API gateway", "the API gateway"},
		{"Recall details regarding: the outage in May", "the outage in May"},
		{"Find the deploy steps", "the deploy steps"},
		{"List all decisions about auth", "all decisions about auth"},
		{"Show me the prod config", "the prod config"},
		{"What memories do you have stored of Lisbon", "Lisbon"},
		{"Search for \"permission denied\"", "\"permission denied\""},
		// A question that opens with a preposition keeps it.
		{"Search your notes for For how long has Nate had his turtles?", "For how long has Nate had his turtles?"},
		{"Find memories about: Around which holiday did Maria crash?", "Around which holiday did Maria crash?"},
		// Not requests: content, kept whole.
		{"search engine optimization plan", "search engine optimization plan"},
		{"check constraints on the orders table", "check constraints on the orders table"},
		{"find -exec syntax", "find -exec syntax"},
		{"look and feel of the settings page", "look and feel of the settings page"},
		{"What did Joanna receive that brought back childhood memories?", "What did Joanna receive that brought back childhood memories?"},
		{"When did Caroline go to the LGBTQ support group?", "When did Caroline go to the LGBTQ support group?"},
		{"What do you think about Rust?", "What do you think about Rust?"},
		{"What details did Melanie share about her trip?", "What details did Melanie share about her trip?"},
		{"Which memory of her dad did Dave share?", "Which memory of her dad did Dave share?"},
		{"What information did the assistant give on caching?", "What information did the assistant give on caching?"},
		{"memories of Paris", "memories of Paris"},
		// Nothing but a request: the query is searched as it is.
		{"find memories", "find memories"},
		{"What do you remember?", "What do you remember?"},
	} {
		if got := RequestContent(c.query); got != c.want {
			t.Errorf("RequestContent(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}
