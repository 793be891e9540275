// Command tokens prints, for each file named on the command line, how many
// o200k_base tokens (the encoding of OpenAI's GPT-4o and later models) its
// content is, one "count<TAB>file" line per file. The benchmark uses it to
// count what a tools/list costs a model's context.
//
// It is a module of its own so that the tokenizer (and its 16 MB of
// vocabulary) is not a dependency of tailor.
package main

import (
	"fmt"
	"os"

	"github.com/tiktoken-go/tokenizer"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tokens FILE...")
		os.Exit(2)
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tokens:", err)
		os.Exit(1)
	}
	for _, f := range os.Args[1:] {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tokens:", err)
			os.Exit(1)
		}
		n, err := enc.Count(string(b))
		if err != nil {
			fmt.Fprintf(os.Stderr, "tokens: %s: %v\n", f, err)
			os.Exit(1)
		}
		fmt.Printf("%d\t%s\n", n, f)
	}
}
