package palace_test

import (
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
)

// sessionTurns makes a recorded conversation's turns of session s1 from
// texts that open with their speaker ("Ana: …"), a second apart.
func sessionTurns(texts []string) []*palace.Drawer {
	at := time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC)
	ds := make([]*palace.Drawer, 0, len(texts))
	for i, text := range texts {
		who, _, _ := strings.Cut(text, ": ")
		ds = append(ds, &palace.Drawer{Kind: palace.KindTurn, Content: text, SessionID: "s1",
			SenderIDs: []string{who}, Timestamp: at.Add(time.Duration(i) * time.Second)})
	}
	return ds
}
