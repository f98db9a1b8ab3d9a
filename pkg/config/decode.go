package config

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/textfmt"
	"github.com/ccmem/ccmem/pkg/yamlite"
)

// decoder reads a config file's YAML (yamlite: no YAML library in the
// hooks) into a Config, key by key over what it already holds, as
// yaml.v3 would: a key absent keeps its value, a map merges, a list is
// replaced, null clears a list, map or pointer. Unknown keys are gathered
// with the known key nearest each; the first value of the wrong type is
// the error.
type decoder struct {
	unknown []unknownKey
	err     error
}

var durationType = reflect.TypeFor[time.Duration]()

func (d *decoder) fail(n *yamlite.Node, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("line %d: %s", n.Line, fmt.Sprintf(format, args...))
	}
}

// decodeConfig decodes data into cfg.
func decodeConfig(data []byte, cfg *Config) ([]unknownKey, error) {
	n, err := yamlite.Parse(data)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return nil, nil
	}
	d := &decoder{}
	d.value(n, reflect.ValueOf(cfg).Elem(), "")
	return d.unknown, d.err
}

func (d *decoder) value(n *yamlite.Node, out reflect.Value, key string) {
	if n.Kind == yamlite.Scalar && n.Plain && yamlite.Resolve(n.Text) == nil {
		switch out.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			out.Set(reflect.Zero(out.Type()))
		}
		return
	}
	switch out.Kind() {
	case reflect.Pointer:
		if out.IsNil() {
			out.Set(reflect.New(out.Type().Elem()))
		}
		d.value(n, out.Elem(), key)
	case reflect.Struct:
		if n.Kind != yamlite.Map {
			d.fail(n, "%s must be a table of keys, not %s", name(key), kindOf(n))
			return
		}
		t := out.Type()
		var names []string
		fields := map[string]int{}
		for i := range t.NumField() {
			if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
				fields[tag] = i
				names = append(names, tag)
			}
		}
		for i, k := range n.Keys {
			f, ok := fields[k]
			if !ok {
				d.unknown = append(d.unknown, unknownKey{k, textfmt.Nearest(k, names)})
				continue
			}
			d.value(n.Values[i], out.Field(f), k)
		}
	case reflect.Map:
		if n.Kind != yamlite.Map {
			d.fail(n, "%s must be a table of keys, not %s", name(key), kindOf(n))
			return
		}
		if out.IsNil() {
			out.Set(reflect.MakeMap(out.Type()))
		}
		for i, k := range n.Keys {
			v := reflect.New(out.Type().Elem()).Elem()
			if old := out.MapIndex(reflect.ValueOf(k)); old.IsValid() {
				v.Set(old)
			}
			d.value(n.Values[i], v, key+"."+k)
			out.SetMapIndex(reflect.ValueOf(k), v)
		}
	case reflect.Slice:
		if n.Kind != yamlite.Seq {
			d.fail(n, "%s must be a list, not %s", name(key), kindOf(n))
			return
		}
		s := reflect.MakeSlice(out.Type(), len(n.Items), len(n.Items))
		for i, it := range n.Items {
			d.value(it, s.Index(i), key)
		}
		out.Set(s)
	default:
		d.scalar(n, out, key)
	}
}

// scalar sets a scalar field as yaml.v3 does for its kind.
func (d *decoder) scalar(n *yamlite.Node, out reflect.Value, key string) {
	if n.Kind != yamlite.Scalar {
		d.fail(n, "%s must be a single value, not %s", name(key), kindOf(n))
		return
	}
	var v any = n.Text
	if n.Plain {
		v = yamlite.Resolve(n.Text)
	}
	bad := func(want string) {
		d.fail(n, "%s: cannot read `%s` as %s", name(key), textfmt.Shorten(n.Text, 40), want)
	}
	switch out.Kind() {
	case reflect.String:
		out.SetString(n.Text)
	case reflect.Bool:
		switch x := v.(type) {
		case bool:
			out.SetBool(x)
		case string:
			switch x {
			case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
				out.SetBool(true)
			case "n", "N", "no", "No", "NO", "off", "Off", "OFF":
				out.SetBool(false)
			default:
				bad("true or false")
			}
		default:
			bad("true or false")
		}
	case reflect.Int, reflect.Int64:
		if out.Type() == durationType {
			s, ok := v.(string)
			dur, err := time.ParseDuration(s)
			if !ok || err != nil {
				bad("a duration (such as 4s or 30m)")
				return
			}
			out.SetInt(int64(dur))
			return
		}
		var i int64
		switch x := v.(type) {
		case int:
			i = int64(x)
		case int64:
			i = x
		case uint64:
			if x > math.MaxInt64 {
				bad("a whole number")
				return
			}
			i = int64(x)
		case float64:
			if math.IsNaN(x) || x > math.MaxInt64 || x < math.MinInt64 {
				bad("a whole number")
				return
			}
			i = int64(x)
		default:
			bad("a whole number")
			return
		}
		if out.OverflowInt(i) {
			bad("a whole number this small")
			return
		}
		out.SetInt(i)
	case reflect.Float64:
		switch x := v.(type) {
		case int:
			out.SetFloat(float64(x))
		case int64:
			out.SetFloat(float64(x))
		case uint64:
			out.SetFloat(float64(x))
		case float64:
			out.SetFloat(x)
		default:
			bad("a number")
		}
	case reflect.Interface:
		out.Set(reflect.ValueOf(v))
	default:
		bad(out.Type().String())
	}
}

func name(key string) string {
	if key == "" {
		return "the config"
	}
	return key
}

func kindOf(n *yamlite.Node) string {
	switch n.Kind {
	case yamlite.Map:
		return "a table"
	case yamlite.Seq:
		return "a list"
	}
	return fmt.Sprintf("`%s`", textfmt.Shorten(n.Text, 40))
}
