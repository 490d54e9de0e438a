package main

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The table (envVars) names fields by dotted path; these helpers read and
// set them by reflection, parsing a value by the field's type, so adding a
// knob is one row of the table.

var durationType = reflect.TypeFor[time.Duration]()

// inStageConfig reports whether path lies in a stage's config: a top-level
// field whose type has WithDefaults. Such fields stay zero when their
// variable is unset, and the stage applies its own default.
func inStageConfig(path string) bool {
	top, _, nested := strings.Cut(path, ".")
	if !nested {
		return false
	}
	f, ok := reflect.TypeFor[Config]().FieldByName(top)
	if !ok {
		return false
	}
	_, ok = f.Type.MethodByName("WithDefaults")
	return ok
}

// withStageDefaults returns c with every stage config's WithDefaults
// applied: what the stages will run with.
func withStageDefaults(c Config) Config {
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if m := f.MethodByName("WithDefaults"); m.IsValid() {
			f.Set(m.Call(nil)[0])
		}
	}
	return c
}

// fieldByPath returns the field of v (a Config) named by path; it panics
// on a path that does not exist, which the table's tests rule out.
func fieldByPath(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".") {
		v = v.FieldByName(name)
		if !v.IsValid() {
			panic("config: no field " + path)
		}
	}
	return v
}

// setField parses s by the type of c's field at path and sets it.
func setField(c *Config, path, s string) error {
	f := fieldByPath(reflect.ValueOf(c).Elem(), path)
	v, err := parseValue(f.Type(), s)
	if err != nil {
		return err
	}
	f.Set(v)
	return nil
}

func parseValue(t reflect.Type, s string) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	if t == durationType {
		d, err := time.ParseDuration(s)
		if err != nil {
			return v, fmt.Errorf("want a duration such as 90s, 15m or 720h, got %q", s)
		}
		v.SetInt(int64(d))
		return v, nil
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return v, fmt.Errorf("want true or false, got %q", s)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			return v, fmt.Errorf("want an integer, got %q", s)
		}
		v.SetInt(n)
	case reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, t.Bits())
		if err != nil {
			return v, fmt.Errorf("want a non-negative integer, got %q", s)
		}
		v.SetUint(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return v, fmt.Errorf("want a number, got %q", s)
		}
		v.SetFloat(x)
	case reflect.Slice:
		for _, item := range splitList(s) {
			e, err := parseValue(t.Elem(), item)
			if err != nil {
				return v, err
			}
			v = reflect.Append(v, e)
		}
	case reflect.Map:
		v = reflect.MakeMap(t)
		for _, item := range splitList(s) {
			key, val, ok := strings.Cut(item, "=")
			if !ok || strings.TrimSpace(key) == "" {
				return v, fmt.Errorf("want key=value,…, got %q", item)
			}
			e, err := parseValue(t.Elem(), strings.TrimSpace(val))
			if err != nil {
				return v, fmt.Errorf("%s: %w", strings.TrimSpace(key), err)
			}
			v.SetMapIndex(reflect.ValueOf(strings.TrimSpace(key)), e)
		}
	default:
		return v, errors.New("config: no parser for " + t.String())
	}
	return v, nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// formatField writes a field the way its variable is written: parseValue
// reads back what formatField writes.
func formatField(v reflect.Value) string {
	if v.Type() == durationType {
		return formatDuration(time.Duration(v.Int()))
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice:
		items := make([]string, v.Len())
		for i := range v.Len() {
			items[i] = formatField(v.Index(i))
		}
		return strings.Join(items, ",")
	case reflect.Map:
		var items []string
		for _, k := range v.MapKeys() {
			items = append(items, k.String()+"="+formatField(v.MapIndex(k)))
		}
		slices.Sort(items)
		return strings.Join(items, ",")
	}
	return fmt.Sprint(v.Interface())
}

// formatDuration writes 5m and 720h where time.Duration writes 5m0s and 720h0m0s.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
