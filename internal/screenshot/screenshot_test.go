package screenshot

import (
	"bytes"
	"image/png"
	"testing"
)

func TestParse(t *testing.T) {
	rows := Parse("\x1b[1;35m✻\x1b[0m hi 日本\x1b[38;5;196mR\x1b[48;2;1;2;3mB\x1b[7mV\x1b]0;title\x07\n\x1b[32mgreen", 10)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0]
	// ✻ space h i space 日(2) 本(2) R B V would be 12 cells: cut at 10.
	if len(r) != 10 {
		t.Fatalf("first row has %d cells, want 10 (cut to the width)", len(r))
	}
	if r[0].r != '✻' || !r[0].bold || r[0].fg != ansi16[5] || r[1].bold {
		t.Errorf("bold magenta then reset: %+v %+v", r[0], r[1])
	}
	if r[5].r != '日' || !r[5].wide || !r[6].cont || r[7].r != '本' {
		t.Errorf("wide characters take two cells: %+v", r[5:9])
	}
	if r[9].r != 'R' || r[9].fg != xterm256(196) {
		t.Errorf("256-colour red: %+v", r[9])
	}
	if rows[1][0].fg != ansi16[2] || rows[1][0].r != 'g' {
		t.Errorf("each line starts from the default style, then green: %+v", rows[1][0])
	}
	wide := Parse("\x1b[48;2;1;2;3mB\x1b[7mV", 5)[0]
	if wide[0].bg.R != 1 || wide[0].bg.B != 3 || wide[1].fg != wide[0].bg {
		t.Errorf("24-bit background, then reverse: %+v", wide)
	}
}

func TestRenderIsAPNGOfTheTerminalSize(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, "\x1b[32mok\x1b[0m", 20, 3); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 20*7 || b.Dy() < 3*14 {
		t.Fatalf("image %v is smaller than 20×3 cells", b)
	}
}
