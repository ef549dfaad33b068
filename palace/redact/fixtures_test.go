package redact

import "strings"

// Every credential below is assembled at run time from obviously fake parts
// so that secret scanners never see a real-looking token in the source.

func rep(s string, n int) string { return strings.Repeat(s, n) }

// fakeTok returns n deterministic pseudo-random base62 characters, for
// values that must pass the entropy test of labelled secrets.
func fakeTok(seed uint32, n int) string {
	const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	x := seed*2654435761 | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = abc[x%62]
	}
	return string(b)
}

var (
	fakeEMK    = "emk" + "_" + "a1b2" + rep("c3d4", 6)       // emk_a1b2c3d4…
	fakeEVT    = "evt" + "_" + "a1b2" + rep("Z9y8", 5)       // evt_a1b2Z9y8…
	fakeAWSID  = "AK" + "IA" + "FAKE" + "TEST" + rep("0", 8) // 20 chars
	fakeASIA   = "AS" + "IA" + rep("Z", 12) + "2345"
	fakeAWSSec = fakeTok(1, 19) + "/" + fakeTok(2, 19) + "+" // 40 chars
	fakeGHP    = "gh" + "p_" + rep("a1", 18)
	fakeGHS    = "gh" + "s_" + rep("Q9w", 12)
	fakeGHPat  = "github" + "_pat_" + rep("11FAKE0", 3) + "x" + "_" + rep("xY9", 20)
	fakeOpenAI = "sk" + "-" + rep("T3st", 12)
	fakeProj   = "sk" + "-proj-" + rep("Ab3_", 10) + rep("cD-4", 5)
	fakeAnt    = "sk" + "-ant-" + "api03-" + rep("Xy7-", 20) + "AA"
	fakeXoxb   = "xo" + "xb-" + "1234567890-" + "1234567890123-" + rep("AbCd", 6)
	fakeXoxp   = "xo" + "xp-" + rep("9876543210-", 3) + rep("f0", 16)
	fakeHook   = "https://hooks.slack" + ".com/services/" + "T00000000/B00000000/" + rep("X", 24)
	fakeJWT    = "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." +
		"ey" + "JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkZha2UifQ" + "." + rep("s1G_", 10) + "Qw"
	fakePEMBody = "MIIEowIBAAKCAQEA" + rep("fakeFAKE0123", 4) + "\n" + rep("notArealKEY9", 5) + "\n" + rep("Zm9v", 3) + "=="
	fakeHex64   = rep("0f", 32)
)

func fakePEM(label string) string {
	return "-----BEGIN " + label + "-----\n" + fakePEMBody + "\n-----END " + label + "-----"
}

func presignedV4() string {
	return "https://bucket.s3.amazonaws.com/path/file.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
		"&X-Amz-Credential=" + fakeAWSID + "%2F20240101%2Fus-east-1%2Fs3%2Faws4_request" +
		"&X-Amz-Date=20240101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host" +
		"&X-Amz-Security-Token=" + "IQo" + rep("FakeSession", 4) + "%2B" + rep("T0k", 5) + "%3D" +
		"&X-Amz-Signature=" + fakeHex64
}

const presignedV4Want = "https://bucket.s3.amazonaws.com/path/file.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
	"&X-Amz-Credential=[REDACTED]" +
	"&X-Amz-Date=20240101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host" +
	"&X-Amz-Security-Token=[REDACTED]" +
	"&X-Amz-Signature=[REDACTED]"

func presignedGCS() string {
	return "https://storage.googleapis.com/bucket/obj?X-Goog-Algorithm=GOOG4-RSA-SHA256" +
		"&X-Goog-Credential=svc%40proj.iam.gserviceaccount.com%2F20240101%2Fauto%2Fstorage%2Fgoog4_request" +
		"&X-Goog-Date=20240101T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host" +
		"&X-Goog-Signature=" + fakeHex64
}

const presignedGCSWant = "https://storage.googleapis.com/bucket/obj?X-Goog-Algorithm=GOOG4-RSA-SHA256" +
	"&X-Goog-Credential=[REDACTED]" +
	"&X-Goog-Date=20240101T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host" +
	"&X-Goog-Signature=[REDACTED]"

func presignedLegacy() string {
	return "https://bucket.s3.amazonaws.com/k.txt?AWSAccessKeyId=" + fakeAWSID +
		"&Expires=1700000000&Signature=" + "fAkE" + rep("SiGn", 5) + "%2B" + "x%3D"
}

const presignedLegacyWant = "https://bucket.s3.amazonaws.com/k.txt?AWSAccessKeyId=[REDACTED]" +
	"&Expires=1700000000&Signature=[REDACTED]"

// prose is about 2 KB of ordinary text with hyphens, colons, underscores,
// equals signs and capitals, but no secret.
var prose = strings.Repeat("The memory palace keeps long-term notes for agents: "+
	"each drawer is filed in a room, and the dreamer merges near-duplicates "+
	"at night. A user asked about task-force planning, the skeleton of the "+
	"API, and whether max_tokens = 4096 is enough. Bearer of good news: "+
	"tests pass at 10:30, see https://example.com/docs?page=2 for details. ", 7)[:2048]
