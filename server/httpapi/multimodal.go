package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Multimodal parses non-text content items with an OpenAI-compatible chat
// endpoint that accepts image, audio and file parts.
type Multimodal struct {
	BaseURL string // API root, "/v1" added when missing
	Model   string
	APIKey  string
	Client  *http.Client // nil: one with a 120s timeout
}

// MultimodalFromEnv reads LOCI_MULTIMODAL_BASE_URL, LOCI_MULTIMODAL_MODEL
// and LOCI_MULTIMODAL_API_KEY; nil when unset.
func MultimodalFromEnv() (*Multimodal, error) {
	base := strings.TrimSpace(os.Getenv("LOCI_MULTIMODAL_BASE_URL"))
	model := strings.TrimSpace(os.Getenv("LOCI_MULTIMODAL_MODEL"))
	switch {
	case base == "" && model == "":
		return nil, nil
	case base == "" || model == "":
		return nil, errors.New("set both LOCI_MULTIMODAL_BASE_URL and LOCI_MULTIMODAL_MODEL (or neither)")
	}
	return &Multimodal{BaseURL: base, Model: model, APIKey: os.Getenv("LOCI_MULTIMODAL_API_KEY")}, nil
}

var imageMIME = map[string]string{"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}

const parsePrompt = "Transcribe this content to plain text for a memory store: all visible or spoken text, then a short description of anything that is not text. Reply with the text only."

// Parse sends one item to the model and returns its text.
func (m *Multimodal) Parse(ctx context.Context, typ, name string, pl payload) (string, error) {
	b64 := base64.StdEncoding.EncodeToString(pl.data)
	var part map[string]any
	switch typ {
	case "image":
		mt := pl.mimeType
		if mt == "" {
			mt = imageMIME[pl.ext]
		}
		if mt == "" {
			return "", errors.New("unknown image format (give ext: png, jpg, gif or webp)")
		}
		part = map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + mt + ";base64," + b64}}
	case "audio":
		format := pl.ext
		if format != "wav" && format != "mp3" {
			return "", errors.New("unknown audio format (give ext: wav or mp3)")
		}
		part = map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": b64, "format": format}}
	default: // pdf, doc
		mt := pl.mimeType
		if mt == "" {
			mt = map[string]string{"pdf": "application/pdf", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
				"doc": "application/msword", "rtf": "application/rtf", "odt": "application/vnd.oasis.opendocument.text"}[pl.ext]
		}
		if mt == "" && typ == "pdf" {
			mt = "application/pdf"
		}
		if mt == "" {
			return "", errors.New("unknown document format (give ext)")
		}
		if name == "" {
			name = "document." + pl.ext
		}
		part = map[string]any{"type": "file", "file": map[string]any{"filename": name, "file_data": "data:" + mt + ";base64," + b64}}
	}
	body, _ := json.Marshal(map[string]any{
		"model": m.Model,
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": parsePrompt}, part}}},
		"temperature": 0,
	})
	base := strings.TrimRight(m.BaseURL, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if m.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.APIKey)
	}
	client := m.Client
	if client == nil {
		client = &http.Client{Timeout: 120 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", errors.New("the model endpoint cannot be reached")
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the model endpoint answered HTTP %d", resp.StatusCode)
	}
	var cr struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 || strings.TrimSpace(cr.Choices[0].Message.Content) == "" {
		return "", errors.New("the model returned no text")
	}
	return strings.TrimSpace(cr.Choices[0].Message.Content), nil
}
