// The Go oracle of test/shared/go-text.differential.test.ts: for each line in (a JSON string), one
// line out with Go's strconv answers for it: ParseInt(s, 0, 64), ParseInt(s, 10, 64),
// ParseUint(s, 0, 32), ParseBool(s) (values or error texts), Quote(s), and, when ParseFloat(s, 64)
// reads it, the float's bits and FormatFloat(f, 'f', -1, 64); and ParseFloat(s, 32): the float32's
// bits or the error text.
package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strconv"
)

type out struct {
	Int0   string `json:"int0"`
	Int10  string `json:"int10"`
	Uint32 string `json:"uint32"`
	Bool   string `json:"bool"`
	Quote  string `json:"quote"`
	Bits   string `json:"bits,omitempty"`
	Float  string `json:"float,omitempty"`
	F32    string `json:"f32"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<22)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		var s string
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			panic(err)
		}
		var o out
		if v, err := strconv.ParseInt(s, 0, 64); err != nil {
			o.Int0 = "error: " + err.Error()
		} else {
			o.Int0 = strconv.FormatInt(v, 10)
		}
		if v, err := strconv.ParseInt(s, 10, 64); err != nil {
			o.Int10 = "error: " + err.Error()
		} else {
			o.Int10 = strconv.FormatInt(v, 10)
		}
		if v, err := strconv.ParseUint(s, 0, 32); err != nil {
			o.Uint32 = "error: " + err.Error()
		} else {
			o.Uint32 = strconv.FormatUint(v, 10)
		}
		if v, err := strconv.ParseBool(s); err != nil {
			o.Bool = "error: " + err.Error()
		} else {
			o.Bool = strconv.FormatBool(v)
		}
		o.Quote = strconv.Quote(s)
		if f, err := strconv.ParseFloat(s, 32); err != nil {
			o.F32 = "error: " + err.Error()
		} else {
			o.F32 = strconv.FormatUint(uint64(math.Float32bits(float32(f))), 10)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			o.Bits = strconv.FormatUint(math.Float64bits(f), 10)
			o.Float = strconv.FormatFloat(f, 'f', -1, 64)
		}
		b, _ := json.Marshal(o)
		w.Write(b)
		w.WriteString("\n")
	}
}
