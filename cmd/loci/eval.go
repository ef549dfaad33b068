package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loci-mem/loci/cmd/loci/loadbench"
	"github.com/loci-mem/loci/cmd/loci/locomo"
	"github.com/loci-mem/loci/palace"
)

func init() {
	commands["eval"] = command{"measure recall quality on an evaluation set (locomo)", cli(evalCmd)}
}

// evalCmd is `loci eval locomo [--data PATH]... [--path session|agent|hook|facts] [--ask recall|hook] [--method M] [--matrix]
// [--fusion LIST] [--embedder NAME] [--k 1,5,10,20] [--conversations 1-5] [--json FILE]
// [--no-ids] [--one-thread] [--no-dates] [--long-replies N] [--short-messages]
// [--chat-roles] [PATH...]` (and the other rewrites below).
func evalCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		return &result{data: map[string]any{"evaluations": []string{"locomo", "compare"}}, text: func(w io.Writer) {
			fmt.Fprintln(w, "Usage: loci eval locomo [flags]   (loci eval locomo -h for its flags)")
			fmt.Fprintln(w, "       loci eval compare BEFORE.json AFTER.json [--k 10]")
			fmt.Fprintln(w, "  locomo   turn-level evidence recall on LoCoMo (or any file in its schema), by path, method and split")
			fmt.Fprintln(w, "  compare  two runs' --json results, question by question: the difference with its 95% interval, questions gained and lost")
		}}, nil
	}
	if len(args) > 0 && args[0] == "compare" {
		return evalCompare(env, args[1:])
	}
	// The evaluation's dates name no zone (LoCoMo's "1:56 pm on 8 May,
	// 2023", the exports its paths write): they are read as UTC, not as
	// this machine's wall clock, so that its figures are the same on every
	// machine.
	time.Local = time.UTC
	if len(args) == 0 || args[0] != "locomo" {
		what := "no evaluation named"
		if len(args) > 0 {
			what = fmt.Sprintf("unknown evaluation %q", args[0])
		}
		return nil, invalidArgs(what, "Use `loci eval locomo` or `loci eval compare` (`loci eval -h` lists them)")
	}
	// LOCI_PROFILE=prefix profiles the evaluation as it does `loci serve`.
	if prefix := os.Getenv("LOCI_PROFILE"); prefix != "" {
		stop, err := loadbench.StartProfiles(prefix)
		if err != nil {
			return nil, fmt.Errorf("LOCI_PROFILE: %w", err)
		}
		defer stop()
	}
	fs := flag.NewFlagSet("eval locomo", flag.ContinueOnError)
	// The evaluation builds its palaces in a temporary data dir of its
	// own: it takes no --palace, --data-dir or --store.
	fs.String("format", "auto", "output format: auto, text, json or yaml")
	var data fileList
	fs.Var(&data, "data", "a file in LoCoMo's schema (default: ../shared/data/locomo10.json); repeat it, or name files after the flags, to run several")
	method := fs.String("method", "hybrid", "keyword, vector, hybrid, or plain-bm25 (the baseline every figure is read against: plain BM25 over the turns as ../shared/eval/locomo_bm25.py --stopwords ranks them; nothing is stored)")
	path := fs.String("path", locomo.PathSession, "ingestion path: session (recorded conversation turns), agent (standalone texts through memory_remember's path) or agent-session (the same, each text naming its conversation, the LoCoMo session, as memory_remember's session) or agent-reply (the same, each text naming the recorded session, one group chat under --interleave, and, where it answers an earlier message than the last, that message as its reply_to) or hook (one drawer per prompt and reply, and the same exchanges in the session buffer, as the Claude Code Stop hook saves them; use with --chat-roles) or facts (the file's observations, stored as the remember tool stores facts and asked as the recall tool asks) or episodes (each session appended and flushed as the HTTP API's /add records a conversation: episodes and atomic facts; measured by session, k counting memories read) or mem-save-turn (the same, as an agent records it through the MCP tool mem_save_turn: a role and a text a message, the tool's default owners) or whatsapp (each conversation written as WhatsApp exports a chat and stored as loci import stores one: a session a conversation, each message with its own time) or chatgpt (each session written as a conversation of ChatGPT's export and stored as loci import stores one; with --chat-roles) or slack (each conversation written as a Slack workspace's export of one channel, each session a thread, and stored as loci import stores one: each thread a session) or telegram (each conversation written as Telegram's export of a chat, a turn answering an earlier message than the one before it written as a reply to it, and stored as loci import stores one)")
	embName := fs.String("embedder", "", "embedder name (default: the configured one)")
	kList := fs.String("k", "1,5,10,20", "cut-offs")
	convs := fs.String("conversations", "", "conversation numbers to run, e.g. 1-5 or 6-10 (default all)")
	jsonOut := fs.String("json", "", "also write per-question results to this file (with --matrix or --fusion, one file a variant: F.json becomes F.<path>-<method>[-K<k>-k<w>-v<w>].json, each for `loci eval compare`)")
	fusionList := fs.String("fusion", "", "hybrid only: semicolon-separated K:keywordWeight:vectorWeight settings to compare over one ingestion, e.g. 60:1:1;20:1:0.5")
	shortMessages := fs.Bool("short-messages", false, "rewrite the conversations first: every turn is sent as its sentences, one message each (a messaging-app-like variant; evidence is the messages that hold a word of the answer)")
	chatRoles := fs.Bool("chat-roles", false, "rewrite the conversations first: the first speaker becomes the user, the second the assistant, and every question is put in their voice (\"When did I…\", \"What is your…\"; a user-assistant-like variant; after the other rewrites)")
	longReplies := fs.Int("long-replies", 0, "rewrite the conversations first: each turn of the second speaker takes in the N-1 turns after it as one long reply (a user-assistant-like variant; 0 or 1: off)")
	echoReplies := fs.Int("echo-replies", 0, "rewrite the conversations first: each turn of the second speaker opens with the first speaker's last N turns of the session, repeated (replies that restate what they were told; evidence unchanged; 0: off)")
	topicReplies := fs.Int("topic-replies", 0, "rewrite the conversations first: each turn of the second speaker goes on with the N texts of other sessions that share the most words with the first speaker's last turn, no question's evidence among them (replies that elaborate on the user's topic without restating it; evidence unchanged; 0: off)")
	echoReworded := fs.Bool("echo-reworded", false, "with --echo-replies: each repeated turn is restated in other words (\"You mentioned that…\", first person made second, every third word left out, every fourth kept made vague), as a reply restates more often than it quotes")
	pastes := fs.String("pastes", "", "rewrite the conversations first: every other session ends with a piece (3, 10, 30 or 100 KB) of a text file of this directory, pasted (\"Here is the file I was looking at:\"; never evidence), as a chat about a project holds logs and source files")
	pastesInTurn := fs.Bool("pastes-in-turn", false, "with --pastes: the piece follows the text of one of the first speaker's turns of the session instead of being a turn of its own (a statement and the log it is about in one message; evidence unchanged)")
	typos := fs.Float64("typos", 0, "rewrite the conversations last: misspell this share (0-1) of the turns' words of three letters or more, each by one letter left out, added, changed or swapped (text typed in haste; questions unchanged; 0: off)")
	userNames := fs.Bool("user-names", false, "rewrite the conversations first: every speaker recorded by a user name, as chat exports and logs write them (\"caroline\", \"jon_snow\"); the questions still name them as written")
	casualQuestions := fs.Bool("casual-questions", false, "rewrite the questions: typed as --casual-typing types the turns (lower case, no apostrophes, no closing marks: \"what did carolines mom give her\"), as a person types a prompt on a phone")
	requestFrames := fs.Bool("request-frames", false, "rewrite the questions, after the other rewrites of them: each opens with a request to the memory, as an agent passes on what it was asked (\"Search your notes for When did…\", \"What do you remember about …\")")
	unseenNames := fs.Bool("unseen-names", false, "rewrite the conversations first: the two speakers given names the built-in encoder's word vectors do not hold (\"Oluwaseun\", \"Xiaoling\"), in the turns, the questions, the answers and the facts alike")
	anonymised := fs.Bool("anonymised", false, "rewrite the conversations first: the two speakers recorded as A and B, as anonymised dialogues write them; the questions still name them as written")
	mediaOmitted := fs.Bool("media-omitted", false, "rewrite the conversations first, before --short-messages: every shared image written as a chat export writes it, a message of its own from the same speaker reading \"<Media omitted>\", without its caption (questions and evidence unchanged)")
	mediaLinks := fs.Bool("media-links", false, "rewrite the conversations first, before --short-messages: every shared image written as an app that shares images as links writes it, each of its links (LoCoMo's img_url) a message of its own from the same speaker, without its caption (questions and evidence unchanged)")
	casualTyping := fs.Bool("casual-typing", false, "rewrite the conversations, after the other rewrites of the text and before --typos: every turn typed as chat messages often are, in lower case, without apostrophes and without the marks that close sentences (\"did you go\", \"im so glad\"; questions and evidence unchanged)")
	emojiWords := fs.Float64("emoji-words", 0, "rewrite the conversations, after the other rewrites of the text and before --casual-typing: write this share (0-1) of the turns' words that an emoji of a thing is named by as the emoji (\"my new 🐕\", \"off to 🇯🇵\"; questions unchanged; 0: off)")
	questionTypos := fs.Float64("question-typos", 0, "rewrite the questions: misspell this share (0-1) of their words as --typos misspells the turns' (a question typed in haste; 0: off)")
	noDates := fs.Bool("no-dates", false, "rewrite the conversations first: drop the sessions' dates and the turns' own times, so every drawer carries the time it was stored (a chat exported or converted without its times; questions unchanged)")
	dateForm := fs.String("date-form", "", "rewrite the conversations first: write every session date and turn time in this Go time layout (\"2006/01/02 (Mon) 15:04\", LongMemEval's; \"02/01/2006, 15:04\", a chat export's), to see that dates written as other datasets write them are read")
	crossedReplies := fs.Float64("crossed-replies", 0, "rewrite the conversations after the other rewrites of the text and before --quoted-replies: this share (0-1) of the replies cross the message before them, sent before the last message of the run they answer, as when both people type at once (evidence stays on the turns; 0: off)")
	quotedReplies := fs.Float64("quoted-replies", 0, "rewrite the conversations after the other rewrites of the text and before --tapbacks: this share (0-1) of the replies quote the message they answer above their own text, each of its lines after \"> \", as mail and markdown write a reply (evidence unchanged; 0: off)")
	tapbacks := fs.Float64("tapbacks", 0, "rewrite the conversations after the other rewrites of the text and before --slow-replies: this share (0-1) of the turns is followed by the other speaker's reaction as a text of its own, as a phone that cannot show iMessage's tapbacks receives them (\"Loved “I got the job!”\"; evidence stays on the turns; 0: off)")
	slowReplies := fs.Float64("slow-replies", 0, "rewrite the conversations last: every turn gets a time of its own, minutes after the one before, and this share (0-1) of the replies (turns of another speaker) come 45 minutes to 10 hours later, as people answer in a messaging app (texts and evidence unchanged; 0: off)")
	askHow := fs.String("ask", locomo.AskRecall, "how the questions are asked: recall (memory_recall's first k) or hook (as the Claude Code prompt hook chooses what to inject: its search, its relevance threshold, at most five memories)")
	foreign := fs.Bool("foreign-questions", false, "ask each conversation the questions of the next one in the file (the last the first's), whose answers it does not hold, and report how many got anything back and how much, instead of recall: the prompts about nothing stored that the faces which leave out weak matches (--ask hook, --path facts) should answer with nothing")
	haystack := fs.Int("haystack", 0, "rewrite the conversations first: each gains the sessions of the N conversations after it in the file, their speakers renamed to its own and their dates moved into its span, so a question must be found in a palace N+1 times as large (its evidence unchanged; 0: off)")
	interleave := fs.Bool("interleave", false, "rewrite the conversations, after the rewrites of the turns' text: every two consecutive sessions are held at once, the second's turns sent between the first's, one for one, on the first's date, as a group chat or a team's channel holds two conversations at a time (a turn keeps its dia_id, whose session number --path slack writes as the turn's thread; evidence unchanged; the second session's date is lost)")
	oneThread := fs.Bool("one-thread", false, "rewrite the conversations first: every session's turns become one thread (session_1), each turn carrying its session's date as its own time (a chat app's export; evidence unchanged; with --no-dates, without the times)")
	dream := fs.Bool("dream", false, "run every dreamer pass over each palace once it is recorded (at the time of its last turn), before the questions: recall on a palace as the background dreamer leaves it")
	noIDs := fs.Bool("no-ids", false, "agent path: store each turn without its \"[D1:3]\" id, as an agent's own notes carry none (the id's session number is a word every text of its session shares)")
	writeData := fs.String("write-data", "", "also write the selected conversations, as rewritten, to this file in LoCoMo's schema (for the plain BM25 script)")
	matrix := fs.Bool("matrix", false, "report keyword, vector and hybrid on both ingestion paths (session and agent), and plain BM25, by conversation split")
	files, err := parseFlags(env, fs, args[1:])
	if err != nil {
		return nil, err
	}
	data = append(data, files...)
	if len(data) == 0 {
		data = fileList{locomo.DefaultDataPath()}
	}
	mode := palace.Mode(*method)
	if mode != palace.ModeHybrid && mode != palace.ModeKeyword && mode != palace.ModeVector && mode != locomo.MethodPlainBM25 {
		return nil, invalidArgs("unknown --method "+*method, "Use keyword, vector, hybrid or plain-bm25")
	}
	var ks []int
	for _, s := range strings.Split(*kList, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 || k > 100 {
			return nil, invalidArgs("bad --k value "+s, "Use a comma-separated list of integers in 1..100")
		}
		ks = append(ks, k)
	}
	if *longReplies < 0 || *longReplies > 100 {
		return nil, invalidArgs(fmt.Sprintf("bad --long-replies %d", *longReplies), "Use a number of turns per reply in 2..100, or 0 for the data as it is")
	}
	if *echoReplies < 0 || *echoReplies > 100 {
		return nil, invalidArgs(fmt.Sprintf("bad --echo-replies %d", *echoReplies), "Use a number of earlier turns each reply repeats, in 1..100, or 0 for the data as it is")
	}
	const ofWords = "Use a share of the words, in 0..1 (0.1: one word in ten)"
	for _, f := range []struct {
		flag  string
		share float64
		hint  string
	}{
		{"typos", *typos, ofWords},
		{"question-typos", *questionTypos, ofWords},
		{"emoji-words", *emojiWords, ofWords},
		{"crossed-replies", *crossedReplies, "Use the share of the replies that cross the message before them, in 0..1 (0.3: about one in three)"},
		{"quoted-replies", *quotedReplies, "Use the share of the replies that quote their message, in 0..1 (0.3: about one in three)"},
		{"tapbacks", *tapbacks, "Use the share of the turns reacted to, in 0..1 (0.15: about one turn in seven)"},
		{"slow-replies", *slowReplies, "Use the share of replies that come hours later, in 0..1 (0.2: one in five)"},
	} {
		if !(f.share >= 0 && f.share <= 1) {
			return nil, invalidArgs(fmt.Sprintf("bad --%s %g", f.flag, f.share), f.hint)
		}
	}
	if *haystack < 0 {
		return nil, invalidArgs(fmt.Sprintf("bad --haystack %d", *haystack), "Use the number of other conversations to add to each, 0 or more (and fewer than the file holds)")
	}
	if *topicReplies < 0 || *topicReplies > 100 {
		return nil, invalidArgs(fmt.Sprintf("bad --topic-replies %d", *topicReplies), "Use a number of texts each reply goes on with, in 1..100, or 0 for the data as it is")
	}
	if *mediaOmitted && *mediaLinks {
		return nil, invalidArgs("--media-omitted and --media-links both write the shared images", "Choose one: --media-omitted writes each as \"<Media omitted>\", --media-links as its links")
	}
	if *echoReworded && *echoReplies == 0 {
		return nil, invalidArgs("--echo-reworded needs --echo-replies", "Add --echo-replies N (the turns each reply restates)")
	}
	var pasteFiles [][]byte
	if *pastes != "" {
		if pasteFiles, err = locomo.PasteFiles(*pastes); err != nil {
			return nil, invalidArgs("--pastes: "+err.Error(), "Name a directory of text files of 8 KB or more, e.g. $(go env GOROOT)/src/net/http")
		}
	}
	if *pastesInTurn && *pastes == "" {
		return nil, invalidArgs("--pastes-in-turn needs --pastes", "Add --pastes DIR (the directory of text files to paste from)")
	}
	if *writeData != "" {
		if st, err := os.Stat(filepath.Dir(*writeData)); err != nil || !st.IsDir() {
			return nil, invalidArgs("--write-data "+*writeData+": no such directory", "Name a file in a directory that exists")
		}
	}
	samples, err := parseRange(*convs)
	if err != nil {
		return nil, err
	}
	for _, f := range data {
		if _, err := os.Stat(f); err != nil {
			return nil, &cliError{Type: "not_found", Message: "LoCoMo data not found at " + f,
				Hint: "Put locomo10.json (snap-research/LoCoMo, data/locomo10.json) at ../shared/data/ or pass --data PATH"}
		}
	}
	fusions, err := parseFusions(*fusionList)
	if err != nil {
		return nil, err
	}
	emb, err := embedderNamed(*embName)
	if err != nil {
		return nil, err
	}
	progress := func(format string, a ...any) { statusf(env, "eval: "+format, a...) }
	warn := func(format string, a ...any) { fmt.Fprintf(env.stderr, "eval: warning: "+format+"\n", a...) }
	progress("method %s, embedder %s, data %s", mode, emb.ID(), strings.Join(data, ", "))
	start := time.Now()
	bySession := locomo.BySession(*path)
	agentPaths := []string{locomo.PathAgent, locomo.PathAgentSession, locomo.PathAgentReply}
	turnPaths := append([]string{locomo.PathSession, locomo.PathHook, locomo.PathFacts, locomo.PathWhatsApp, locomo.PathChatGPT, locomo.PathSlack, locomo.PathTelegram}, agentPaths...)
	if !slices.Contains(turnPaths, *path) && !bySession {
		return nil, invalidArgs("unknown --path "+*path, "Use --path session, agent, agent-session, agent-reply, hook, facts, whatsapp, chatgpt, slack, telegram, episodes or mem-save-turn")
	}
	if *path == locomo.PathFacts {
		// The facts path stores the file's observations, not its turns,
		// and asks as the recall tool does: a rewrite of the turns changes
		// nothing it stores, and the tool has one ranking (no matrix of
		// methods, no fusions to compare).
		notForFacts := map[string]bool{"short-messages": *shortMessages, "media-omitted": *mediaOmitted, "media-links": *mediaLinks, "chat-roles": *chatRoles, "long-replies": *longReplies > 1,
			"echo-replies": *echoReplies > 0, "topic-replies": *topicReplies > 0, "pastes": *pastes != "", "typos": *typos > 0, "emoji-words": *emojiWords > 0, "tapbacks": *tapbacks > 0, "quoted-replies": *quotedReplies > 0, "crossed-replies": *crossedReplies > 0, "casual-typing": *casualTyping, "user-names": *userNames, "anonymised": *anonymised, "no-dates": *noDates, "date-form": *dateForm != "",
			"slow-replies": *slowReplies > 0, "haystack": *haystack > 0, "one-thread": *oneThread, "interleave": *interleave, "no-ids": *noIDs, "matrix": *matrix, "fusion": *fusionList != ""}
		for _, name := range slices.Sorted(maps.Keys(notForFacts)) {
			if notForFacts[name] {
				return nil, invalidArgs("--"+name+" does not apply to --path facts", "The facts path stores the file's observations and asks as the recall tool does; of the rewrites only --question-typos, --casual-questions, --request-frames and --unseen-names apply to it")
			}
		}
		if mode != palace.ModeHybrid || *askHow != locomo.AskRecall {
			return nil, invalidArgs("--path facts asks as the recall tool does", "Leave out --method and --ask: the recall tool's ranking is hybrid")
		}
	}
	if mode == locomo.MethodPlainBM25 {
		// The baseline ranks the turns as the file has them: it stores
		// nothing, so no path, way of asking or fusion applies to it.
		switch {
		case *path != locomo.PathSession && !bySession:
			return nil, invalidArgs("--method plain-bm25 stores nothing, so --path "+*path+" does not apply", "Leave out --path (the baseline ranks the turns as the file has them), or use --path episodes (it ranks whole sessions)")
		case *askHow != locomo.AskRecall:
			return nil, invalidArgs("--method plain-bm25 asks as the baseline script does", "Leave out --ask")
		case *fusionList != "":
			return nil, invalidArgs("--fusion applies to hybrid only", "Leave out --fusion, or use --method hybrid")
		case *matrix:
			return nil, invalidArgs("--matrix reports plain BM25 beside every method", "Leave out --method")
		case *dream:
			return nil, invalidArgs("--method plain-bm25 stores nothing, so there is nothing to dream over", "Leave out --dream")
		}
	}
	if *askHow != locomo.AskRecall && *askHow != locomo.AskHook {
		return nil, invalidArgs("unknown --ask "+*askHow, "Use --ask recall or --ask hook")
	}
	if other := time.Date(2001, 11, 22, 9, 8, 7, 0, time.UTC); *dateForm != "" && other.Format(*dateForm) == *dateForm {
		return nil, invalidArgs("--date-form "+*dateForm+" is no Go time layout", `Write the reference time Mon Jan 2 15:04:05 2006 as the dates should be written, e.g. --date-form "2006/01/02 (Mon) 15:04"`)
	}
	if bySession && (*matrix || *askHow != locomo.AskRecall) {
		return nil, invalidArgs("--path "+*path+" is measured by session, with memory_recall's ranking", "Leave out --matrix and --ask; compare it with --method plain-bm25 --path "+*path)
	}
	if *foreign && (*matrix || *fusionList != "" || mode == locomo.MethodPlainBM25 || bySession) {
		return nil, invalidArgs("--foreign-questions counts what one face returns", "Leave out --matrix, --fusion and --method plain-bm25, and use a path that stores turns or facts")
	}
	if *noIDs && !slices.Contains(agentPaths, *path) && !*matrix {
		return nil, invalidArgs("--no-ids applies to the agent paths", "Add --path agent, agent-session or agent-reply (or --matrix, whose agent runs it changes)")
	}
	// What every run shares: the data, its rewrites and the questions.
	opts := locomo.Options{Data: data, Ask: *askHow, Embedder: emb, Ks: ks, Samples: samples, Progress: progress, Warn: warn,
		NoIDs: *noIDs, Dream: *dream, OneThread: *oneThread, Interleave: *interleave, NoDates: *noDates, DateForm: *dateForm, LongReplies: *longReplies, ShortMessages: *shortMessages, MediaOmitted: *mediaOmitted, MediaLinks: *mediaLinks, ChatRoles: *chatRoles, EchoReplies: *echoReplies, EchoReworded: *echoReworded, TopicReplies: *topicReplies, Pastes: pasteFiles, PastesInTurn: *pastesInTurn, Typos: *typos, EmojiWords: *emojiWords, Tapbacks: *tapbacks, QuotedReplies: *quotedReplies, CrossedReplies: *crossedReplies, CasualTyping: *casualTyping, UnseenNames: *unseenNames, UserNames: *userNames, Anonymised: *anonymised, CasualQuestions: *casualQuestions, QuestionTypos: *questionTypos, RequestFrames: *requestFrames, SlowReplies: *slowReplies, Haystack: *haystack, ForeignQuestions: *foreign, WriteData: *writeData}
	if *matrix || len(fusions) > 0 {
		// One ingestion per path; every variant asks every question.
		paths := []string{*path}
		methods := []palace.Mode{palace.ModeHybrid}
		if *matrix {
			paths = []string{locomo.PathSession, locomo.PathAgent}
			methods = []palace.Mode{palace.ModeKeyword, palace.ModeVector, palace.ModeHybrid}
		}
		var all []locomo.Row
		var variants []locomo.Variant
		for _, pa := range paths {
			var vs []locomo.Variant
			if *matrix && pa == locomo.PathSession {
				// The baseline, once: it stores nothing, so it has no
				// path, and it runs beside the session path's questions.
				vs = append(vs, locomo.Variant{Method: locomo.MethodPlainBM25})
			}
			for _, m := range methods {
				if m != palace.ModeHybrid || len(fusions) == 0 {
					vs = append(vs, locomo.Variant{Path: pa, Method: m})
					continue
				}
				for i := range fusions {
					vs = append(vs, locomo.Variant{Path: pa, Method: m, Fusion: &fusions[i]})
				}
			}
			o := opts
			o.Path, o.Variants = pa, vs
			rows, _, _, err := locomo.Run(ctx, o)
			if err != nil {
				return nil, evalErr(err)
			}
			for _, r := range rows {
				r.Variant += len(variants)
				all = append(all, r)
			}
			variants = append(variants, vs...)
		}
		if *jsonOut != "" {
			if err := writeVariantRows(*jsonOut, all, variants); err != nil {
				return nil, err
			}
		}
		return variantReport(all, variants, ks, emb.ID()), nil
	}
	opts.Path, opts.Method = *path, mode
	rows, ingest, turns, err := locomo.Run(ctx, opts)
	if err != nil {
		return nil, evalErr(err)
	}
	embID := emb.ID()
	if mode == locomo.MethodPlainBM25 {
		embID = "none"
	}
	report := map[string]any{
		"method":         string(mode),
		"embedder":       embID,
		"questions":      len(rows),
		"turns":          turns,
		"ingest_seconds": round3(ingest.Seconds()),
		"total_seconds":  round3(time.Since(start).Seconds()),
		"all":            locomo.Groups(rows, ks),
	}
	split := func(lo, hi int) []locomo.Row {
		var out []locomo.Row
		for _, r := range rows {
			if r.Sample >= lo && r.Sample <= hi {
				out = append(out, r)
			}
		}
		return out
	}
	if len(samples) == 0 {
		report["conversations_1_5"] = locomo.Groups(split(1, 5), ks)
		report["conversations_6_10"] = locomo.Groups(split(6, 10), ks)
	}
	if *foreign {
		// Recall has no meaning here: what came back is the measure.
		for _, key := range []string{"all", "conversations_1_5", "conversations_6_10"} {
			delete(report, key)
		}
		returned := map[string]locomo.Returned{"all": locomo.CountReturned(rows)}
		if len(samples) == 0 {
			returned["conversations_1_5"] = locomo.CountReturned(split(1, 5))
			returned["conversations_6_10"] = locomo.CountReturned(split(6, 10))
		}
		report["foreign_questions"] = returned
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rows, "", " ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return nil, &cliError{Type: "io", Message: err.Error()}
		}
	}
	return &result{data: report, text: func(w io.Writer) { printEval(w, report, ks) }}, nil
}

func parseRange(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return nil, invalidArgs("bad --conversations value "+part, "Use e.g. 1-5 or 1,3,7")
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

func printEval(w io.Writer, report map[string]any, ks []int) {
	fmt.Fprintf(w, "LoCoMo  method=%v  embedder=%v  questions=%v  turns=%v  ingest=%vs\n",
		report["method"], report["embedder"], report["questions"], report["turns"], report["ingest_seconds"])
	if returned, ok := report["foreign_questions"].(map[string]locomo.Returned); ok {
		fmt.Fprintf(w, "\nquestions of another conversation: what came back\n%-20s %9s %9s %7s %14s\n", "conversations", "questions", "answered", "share", "mean returned")
		for _, key := range []string{"all", "conversations_1_5", "conversations_6_10"} {
			if r, ok := returned[key]; ok && r.Questions > 0 {
				fmt.Fprintf(w, "%-20s %9d %9d %7.3f %14.2f\n", key, r.Questions, r.Answered, r.Share, r.Mean)
			}
		}
		return
	}
	for _, key := range []string{"all", "conversations_1_5", "conversations_6_10"} {
		gs, ok := report[key].([]locomo.Group)
		if !ok || (key != "all" && halfIsEmpty(gs)) {
			continue // a file of fewer conversations has no questions in a half
		}
		fmt.Fprintf(w, "\n[%s]\n%-16s %5s", key, "group", "n")
		for _, k := range ks {
			fmt.Fprintf(w, "  any@%-3d all@%-3d frac@%-3d", k, k, k)
		}
		fmt.Fprintln(w)
		for _, g := range gs {
			fmt.Fprintf(w, "%-16s %5d", g.Name, g.N)
			for _, k := range ks {
				fmt.Fprintf(w, "  %7s %7s %8s", metricText(g, "any", k), metricText(g, "all", k), metricText(g, "frac", k))
			}
			fmt.Fprintln(w)
		}
	}
}

// metricText is a group's metric at k as a report prints it: "-" for a
// group with no question, whose 0 would read as a miss of every one.
func metricText(g locomo.Group, metric string, k int) string {
	if g.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", g.Metrics[fmt.Sprintf("%s@%d", metric, k)])
}

// halfIsEmpty reports whether a half's groups count no question.
func halfIsEmpty(gs []locomo.Group) bool {
	for _, g := range gs {
		if g.N > 0 {
			return false
		}
	}
	return true
}

func parseFusions(s string) ([]palace.Fusion, error) {
	if s == "" {
		return nil, nil
	}
	var out []palace.Fusion
	for _, part := range strings.Split(s, ";") {
		f := strings.Split(part, ":")
		if len(f) != 3 {
			return nil, invalidArgs("bad --fusion setting "+part, "Use K:keywordWeight:vectorWeight, e.g. 60:1:1")
		}
		var v [3]float64
		for i := range f {
			x, err := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
			if err != nil || x < 0 {
				return nil, invalidArgs("bad --fusion number "+f[i], "Use non-negative numbers")
			}
			v[i] = x
		}
		out = append(out, palace.Fusion{K: v[0], KeywordWeight: v[1], VectorWeight: v[2]})
	}
	return out, nil
}

// fusionReport compares fusion settings: overall 1-5 per setting, for all
// conversations, 1-5 (where settings are chosen) and 6-10 (held out).
func variantReport(rows []locomo.Row, variants []locomo.Variant, ks []int, embID string) *result {
	type line struct {
		Variant locomo.Variant `json:"variant"`
		All     locomo.Group   `json:"all"`
		Conv1_5 locomo.Group   `json:"conversations_1_5"`
		Conv6_  locomo.Group   `json:"conversations_6_10"`
		// ByCategory is every question of the variant, by LoCoMo category
		// (and by whether it shares a word with its evidence).
		ByCategory []locomo.Group `json:"by_category"`
		// NoWord1_5 and NoWord6_ are the questions of each half that
		// share no word with their evidence.
		NoWord1_5 locomo.Group `json:"shares_no_word_1_5"`
		NoWord6_  locomo.Group `json:"shares_no_word_6_10"`
	}
	noWord := func(rows []locomo.Row) []locomo.Row {
		var out []locomo.Row
		for _, r := range rows {
			if r.SharesWord != nil && !*r.SharesWord {
				out = append(out, r)
			}
		}
		return out
	}
	lines := make([]line, len(variants))
	for i, v := range variants {
		var all, lo, hi []locomo.Row
		for _, r := range rows {
			if r.Variant != i {
				continue
			}
			all = append(all, r)
			if r.Sample <= 5 {
				lo = append(lo, r)
			} else {
				hi = append(hi, r)
			}
		}
		lines[i] = line{v, locomo.Aggregate("all", all, ks), locomo.Aggregate("conversations 1-5", lo, ks), locomo.Aggregate("conversations 6-10", hi, ks), locomo.Groups(all, ks),
			locomo.Aggregate("shares no word 1-5", noWord(lo), ks), locomo.Aggregate("shares no word 6-10", noWord(hi), ks)}
	}
	k := ks[len(ks)-1]
	legs := splitsByLeg(rows, variants, k)
	return &result{data: map[string]any{"embedder": embID, "variants": lines, "legs": legs}, text: func(w io.Writer) {
		fmt.Fprintf(w, "%-8s %-10s %-18s | %-24s | %-24s | %-24s | %-24s | %s\n", "path", "method", "fusion", "conversations 1-5", "conversations 6-10", "all",
			"no shared word, 1-5", "no shared word, 6-10")
		for _, l := range lines {
			fu := "default"
			if f := l.Variant.Fusion; f != nil {
				fu = fmt.Sprintf("K=%g k=%g v=%g", f.K, f.KeywordWeight, f.VectorWeight)
			}
			pa := l.Variant.Path
			if pa == "" {
				pa = "-" // the baseline stores nothing
			}
			fmt.Fprintf(w, "%-8s %-10s %-18s", pa, l.Variant.Method, fu)
			for _, g := range []locomo.Group{l.Conv1_5, l.Conv6_, l.All, l.NoWord1_5, l.NoWord6_} {
				fmt.Fprintf(w, " | any@%d %5s frac@%d %5s", k, metricText(g, "any", k), k, metricText(g, "frac", k))
			}
			fmt.Fprintln(w)
		}
		printLegs(w, legs, k)
	}}
}

// legLine is one path's hybrid ranking set against its legs over some of
// the conversations (locomo.SplitByLeg).
type legLine struct {
	Path          string `json:"path"`
	Conversations string `json:"conversations"`
	K             int    `json:"k"`
	locomo.LegSplit
}

// splitsByLeg sets each path's hybrid rows (at the default fusion)
// against its keyword and vector rows, for conversations 1-5, 6-10 and
// all: none for a path that lacks one of the three.
func splitsByLeg(rows []locomo.Row, variants []locomo.Variant, k int) []legLine {
	type half struct {
		name string
		in   func(sample int) bool
	}
	halves := []half{{"1-5", func(s int) bool { return s <= 5 }}, {"6-10", func(s int) bool { return s > 5 }}, {"all", func(int) bool { return true }}}
	var out []legLine
	var paths []string
	byMethod := map[string]map[palace.Mode]int{} // path -> method -> variant
	for i, v := range variants {
		if v.Path == "" || v.Fusion != nil {
			continue
		}
		if byMethod[v.Path] == nil {
			byMethod[v.Path] = map[palace.Mode]int{}
			paths = append(paths, v.Path)
		}
		byMethod[v.Path][v.Method] = i
	}
	for _, pa := range paths {
		m := byMethod[pa]
		h, okH := m[palace.ModeHybrid]
		kw, okK := m[palace.ModeKeyword]
		ve, okV := m[palace.ModeVector]
		if !okH || !okK || !okV {
			continue
		}
		for _, hf := range halves {
			of := func(variant int) []locomo.Row {
				var mine []locomo.Row
				for _, r := range rows {
					if r.Variant == variant && hf.in(r.Sample) {
						mine = append(mine, r)
					}
				}
				return mine
			}
			if split, ok := locomo.SplitByLeg(of(h), of(kw), of(ve), k); ok && split.N > 0 {
				out = append(out, legLine{pa, hf.name, k, split})
			}
		}
	}
	return out
}

// printLegs prints where each path's hybrid ranking stands against its
// legs: what only it finds, and which leg's finds it loses.
func printLegs(w io.Writer, legs []legLine, k int) {
	if len(legs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nhybrid against its legs: questions found at any@%d by hybrid, by keyword only or vector only (either leg), by hybrid and\n"+
		"neither leg (only hybrid), and those hybrid misses that only keyword, only vector, or both legs find, or none does\n", k)
	fmt.Fprintf(w, "%-8s %-13s %5s %7s %11s %12s %13s %12s %10s %6s\n", "path", "conversations", "n", "hybrid", "either leg", "only hybrid",
		"lost keyword", "lost vector", "lost both", "none")
	for _, l := range legs {
		fmt.Fprintf(w, "%-8s %-13s %5d %7d %11d %12d %13d %12d %10d %6d\n", l.Path, l.Conversations, l.N, l.Hybrid, l.EitherLeg, l.HybridOnly,
			l.LostKeyword, l.LostVector, l.LostBoth, l.MissedByAll)
	}
}

// variantName names a variant in file names: path-method, and the fusion
// when one is given ("session-hybrid-K10-k1-v0.7"; the baseline, which
// stores nothing, is "plain-bm25").
func variantName(v locomo.Variant) string {
	name := string(v.Method)
	if v.Path != "" {
		name = v.Path + "-" + name
	}
	if f := v.Fusion; f != nil {
		name += fmt.Sprintf("-K%g-k%g-v%g", f.K, f.KeywordWeight, f.VectorWeight)
	}
	return name
}

// writeVariantRows writes each variant's per-question rows to a file of
// its own beside path (path.json -> path.<variant>.json), in the form
// `loci eval compare` reads.
func writeVariantRows(path string, rows []locomo.Row, variants []locomo.Variant) error {
	base := strings.TrimSuffix(path, ".json")
	for i, v := range variants {
		var mine []locomo.Row
		for _, r := range rows {
			if r.Variant == i {
				r.Variant = 0
				mine = append(mine, r)
			}
		}
		b, _ := json.MarshalIndent(mine, "", " ")
		if err := os.WriteFile(base+"."+variantName(v)+".json", b, 0o644); err != nil {
			return &cliError{Type: "io", Message: err.Error()}
		}
	}
	return nil
}

// fileList is a repeatable flag naming files.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// evalErr reports a problem with the data given as bad input (exit 2),
// not as a failure of loci.
func evalErr(err error) error {
	var de *locomo.DataError
	if errors.As(err, &de) {
		if de.Hint != "" {
			return invalidArgs(de.Error(), de.Hint)
		}
		return invalidArgs(de.Error(), "Give files in LoCoMo's schema: a list of conversations, or one conversation with its sessions and qa at the top level (README, \"Recall quality\")")
	}
	return err
}
