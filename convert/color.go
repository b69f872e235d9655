package convert

import (
	"math"
	"strconv"
	"strings"
)

// rgb is a colour's red, green and blue components, 0 to 255.
type rgb struct{ r, g, b uint8 }

// cssColorNames are the CSS colour keywords Graph output and pasted text use
// most, with their sRGB values.
var cssColorNames = map[string]rgb{
	"black": {0, 0, 0}, "white": {255, 255, 255}, "gray": {128, 128, 128}, "grey": {128, 128, 128},
	"silver": {192, 192, 192}, "lightgray": {211, 211, 211}, "lightgrey": {211, 211, 211},
	"darkgray": {169, 169, 169}, "darkgrey": {169, 169, 169}, "dimgray": {105, 105, 105},
	"red": {255, 0, 0}, "darkred": {139, 0, 0}, "maroon": {128, 0, 0}, "crimson": {220, 20, 60},
	"orange": {255, 165, 0}, "darkorange": {255, 140, 0}, "coral": {255, 127, 80}, "tomato": {255, 99, 71},
	"yellow": {255, 255, 0}, "gold": {255, 215, 0}, "olive": {128, 128, 0}, "khaki": {240, 230, 140},
	"lime": {0, 255, 0}, "green": {0, 128, 0}, "darkgreen": {0, 100, 0}, "lightgreen": {144, 238, 144},
	"teal": {0, 128, 128}, "aqua": {0, 255, 255}, "cyan": {0, 255, 255}, "turquoise": {64, 224, 208},
	"blue": {0, 0, 255}, "navy": {0, 0, 128}, "darkblue": {0, 0, 139}, "lightblue": {173, 216, 230},
	"skyblue": {135, 206, 235}, "steelblue": {70, 130, 180}, "royalblue": {65, 105, 225},
	"purple": {128, 0, 128}, "violet": {238, 130, 238}, "indigo": {75, 0, 130},
	"fuchsia": {255, 0, 255}, "magenta": {255, 0, 255}, "pink": {255, 192, 203}, "hotpink": {255, 105, 180},
	"windowtext": {0, 0, 0}, "brown": {165, 42, 42}, "chocolate": {210, 105, 30}, "sienna": {160, 82, 45}, "tan": {210, 180, 140},
}

// parseCSSColor reads a CSS colour: #rgb, #rrggbb, #rrggbbaa, rgb()/rgba()
// or a keyword from cssColorNames.
func parseCSSColor(v string) (rgb, bool) {
	v = strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important")))
	if c, ok := cssColorNames[v]; ok {
		return c, true
	}
	if hex, ok := strings.CutPrefix(v, "#"); ok {
		switch len(hex) {
		case 3, 4:
			hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
		case 6, 8:
			hex = hex[:6]
		default:
			return rgb{}, false
		}
		n, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return rgb{}, false
		}
		return rgb{uint8(n >> 16), uint8(n >> 8), uint8(n)}, true
	}
	args, ok := strings.CutPrefix(v, "rgba(")
	if !ok {
		args, ok = strings.CutPrefix(v, "rgb(")
	}
	if !ok || !strings.HasSuffix(args, ")") {
		return rgb{}, false
	}
	parts := strings.FieldsFunc(strings.TrimSuffix(args, ")"), func(r rune) bool { return r == ',' || r == ' ' || r == '/' })
	if len(parts) < 3 {
		return rgb{}, false
	}
	var c [3]uint8
	for i := range 3 {
		p := parts[i]
		scale := 1.0
		if s, ok := strings.CutSuffix(p, "%"); ok {
			p, scale = s, 2.55
		}
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(f) {
			return rgb{}, false
		}
		c[i] = uint8(math.Max(0, math.Min(255, math.Round(f*scale))))
	}
	return rgb{c[0], c[1], c[2]}, true
}

// hsl returns a colour's hue (degrees), saturation and lightness (0 to 1).
func (c rgb) hsl() (h, s, l float64) {
	r, g, b := float64(c.r)/255, float64(c.g)/255, float64(c.b)/255
	hi, lo := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	l = (hi + lo) / 2
	d := hi - lo
	if d == 0 {
		return 0, 0, l
	}
	s = d / (1 - math.Abs(2*l-1))
	switch hi {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, s, l
}

// hueBands give the Notion colour for each hue range, in degrees.
var hueBands = []struct {
	upTo float64
	name string
}{
	{15, "red"}, {40, "orange"}, {70, "yellow"}, {165, "green"},
	{255, "blue"}, {290, "purple"}, {345, "pink"}, {360, "red"},
}

// notionColor maps a CSS colour onto the nearest of Notion's named colours,
// by hue and lightness. Text colours give "red", "blue", …; highlights
// (background) give "red_background", …. Near-black text and near-white
// highlights give "" (Notion's default), greys give gray, dark oranges and
// reds give brown. ok is false when the value is not a colour.
func notionColor(css string, background bool) (name string, ok bool) {
	switch strings.ToLower(strings.TrimSpace(css)) {
	case "transparent", "inherit", "initial", "unset", "none", "auto", "currentcolor":
		return "", true
	}
	c, ok := parseCSSColor(css)
	if !ok {
		return "", false
	}
	h, s, l := c.hsl()
	switch {
	case !background && l < 0.16:
		return "", true
	case background && l > 0.94:
		return "", true
	case s < 0.15 || (!background && l > 0.92):
		name = "gray"
	case h >= 15 && h < 50 && l < 0.35:
		name = "brown"
	default:
		for _, band := range hueBands {
			if h < band.upTo {
				name = band.name
				break
			}
		}
	}
	if background {
		name += "_background"
	}
	return name, true
}

// NotionColor maps a CSS colour value (as OneNote writes it in color or
// background-color) onto the Notion named colour the converter uses for it:
// "" for the default, "red", …, or "red_background", … when background is
// set. Unrecognised values give "".
func NotionColor(css string, background bool) string {
	name, _ := notionColor(css, background)
	return name
}
