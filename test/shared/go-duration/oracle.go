// The Go oracle of test/shared/go-duration.differential.test.ts: for each line in (a JSON string),
// one line out: Go's time.ParseDuration of it (nanoseconds or its error), and go-secure-stdlib's
// parseutil.ParseDurationSecond (v0.1.9, its string branch, copied below) followed by the secrets
// framework's getPrimitive for a TypeDurationSecond (whole seconds, not negative).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
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
	NS      string `json:"ns,omitempty"`
	Err     string `json:"err,omitempty"`
	Sec     string `json:"sec,omitempty"`
	SecErr  string `json:"secErr,omitempty"`
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
		b, _ := json.Marshal(o)
		w.Write(b)
		w.WriteString("\n")
	}
}
