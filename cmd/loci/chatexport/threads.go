package chatexport

import "sort"

// threaded is a conversation of an export that keeps threads (a Slack
// channel, a Google Chat space) as it is read: its own messages, and
// those of each thread. A thread is a conversation of its own, its first
// message and the replies to it, which the app shows apart from the
// channel: a reply answers the thread, not the channel's message sent
// just before it, so each thread is a chat (a session) of its own.
type threaded struct {
	chat    *Chat            // the channel's own messages
	threads map[string]*Chat // a thread's key -> the thread
	order   []string         // the threads' keys as first met
}

// put adds m to the thread of key ("": the channel's own), as the
// thread's first message (which names the thread) when first.
func (c *threaded) put(m Message, key string, first bool) {
	if key == "" {
		c.chat.Messages = append(c.chat.Messages, m)
		return
	}
	if c.threads == nil {
		c.threads = map[string]*Chat{}
	}
	t := c.threads[key]
	if t == nil {
		t = &Chat{ID: c.chat.ID + "/" + key, Format: c.chat.Format}
		c.threads[key] = t
		c.order = append(c.order, key)
	}
	t.Messages = append(t.Messages, m)
	if first {
		t.Name = c.chat.Name + ": " + opening(m.Text)
	}
}

// chats are the channel and its threads, each in the order its messages
// were sent; a thread of one message (a message nobody answered in a
// thread, or a reply whose thread the export does not hold) is the
// channel's, and a channel with no message of its own is left out.
func (c *threaded) chats() []*Chat {
	out := []*Chat{c.chat}
	for _, key := range c.order {
		t := c.threads[key]
		if len(t.Messages) == 1 {
			c.chat.Messages = append(c.chat.Messages, t.Messages[0])
			continue
		}
		if t.Name == "" {
			t.Name = c.chat.Name + ": a thread"
		}
		out = append(out, t)
	}
	for _, ch := range out {
		sort.SliceStable(ch.Messages, func(i, j int) bool { return ch.Messages[i].Time.Before(ch.Messages[j].Time) })
		for i := range ch.Messages {
			ch.Messages[i].Line = i + 1
		}
	}
	if len(c.chat.Messages) == 0 {
		out = out[1:]
	}
	return out
}
