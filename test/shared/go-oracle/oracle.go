// The Go oracle of the differential tests (test/shared/go-duration.differential.test.ts,
// test/shared/go-text.differential.test.ts): for each line in (a JSON string), one line out with Go's
// answers for it:
//   - time.ParseDuration (nanoseconds or its error), and go-secure-stdlib's
//     parseutil.ParseDurationSecond (v0.1.9, its string branch, copied below) followed by the secrets
//     framework's getPrimitive for a TypeDurationSecond (whole seconds, not negative);
//   - strconv: ParseInt(s, 0, 64), ParseInt(s, 10, 64), ParseUint(s, 0, 32), ParseBool(s) (values or
//     error texts), Quote(s), ParseFloat(s, 32) (the float32's bits or the error text), and, when
//     ParseFloat(s, 64) reads it, the float's bits and FormatFloat(f, 'f', -1, 64).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

var errOverflow = errors.New("multiplication of durations resulted in overflow, one operand may be too large")

func overflowMul(a time.Duration, b time.Duration) (time.Duration, error) {
	x := a * b
	if a != 0 && x/a != b {
		return 0, errOverflow
	}
	return x, nil
}

// go-secure-stdlib parseutil.ParseDurationSecond (v0.1.9), string input.
func parseDurationSecond(inp string) (time.Duration, error) {
	var dur time.Duration
	if inp == "" {
		return dur, nil
	}
	if v, err := strconv.ParseInt(inp, 10, 64); err == nil {
		return overflowMul(time.Duration(v), time.Second)
	}
	if strings.HasSuffix(inp, "d") {
		v, err := strconv.ParseInt(inp[:len(inp)-1], 10, 64)
		if err != nil {
			return dur, err
		}
		return overflowMul(time.Duration(v), 24*time.Hour)
	}
	var err error
	if dur, err = time.ParseDuration(inp); err != nil {
		return dur, err
	}
	return dur, nil
}

type out struct {
	NS     string `json:"ns,omitempty"`
	Err    string `json:"err,omitempty"`
	Sec    string `json:"sec,omitempty"`
	SecErr string `json:"secErr,omitempty"`
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
		if d, err := time.ParseDuration(s); err != nil {
			o.Err = err.Error()
		} else {
			o.NS = strconv.FormatInt(int64(d), 10)
		}
		if d, err := parseDurationSecond(s); err != nil {
			o.SecErr = err.Error()
		} else {
			r := int(d.Seconds())
			if r < 0 {
				o.SecErr = fmt.Sprintf("cannot provide negative value '%d'", r)
			} else {
				o.Sec = strconv.Itoa(r)
			}
		}
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
