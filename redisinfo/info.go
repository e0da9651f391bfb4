package redisinfo

import (
	"errors"
	"fmt"
	"strings"
)

// ErrMalformed is wrapped by every error of parsing a reply.
var ErrMalformed = errors.New("redisinfo: malformed reply")

// section is one section of INFO text: its name as written after "#"
// ("" for lines before the first header) and its non-empty lines, trimmed.
type section struct {
	name  string
	lines []string
}

// sections splits INFO text into its sections, in order, a section that
// appears twice as often as it appears. Lines before the first header
// make a section named "" (CLUSTER INFO has only that one).
func sections(text string) []section {
	text = strings.TrimPrefix(text, "txt:")
	var secs []section
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if header, ok := strings.CutPrefix(line, "#"); ok {
			secs = append(secs, section{name: strings.TrimSpace(header)})
			continue
		}
		if line == "" {
			continue
		}
		if len(secs) == 0 {
			secs = append(secs, section{})
		}
		last := &secs[len(secs)-1]
		last.lines = append(last.lines, line)
	}
	return secs
}

// Lines returns the non-empty lines of the section of INFO text called
// name (case-insensitive), trimmed of spaces and line ends, in order. A
// section with no lines gives none; a missing section, or one that
// appears twice, is an error. Name "" is the lines before any section
// header.
func Lines(text, name string) ([]string, error) {
	var lines []string
	found := false
	for _, s := range sections(text) {
		if !strings.EqualFold(s.name, name) {
			continue
		}
		if found {
			return nil, fmt.Errorf("%w: section %q appears twice", ErrMalformed, name)
		}
		found, lines = true, s.lines
	}
	if !found {
		return nil, fmt.Errorf("%w: no %q section", ErrMalformed, name)
	}
	return lines, nil
}

// Section returns the fields of the section of INFO text called name
// (case-insensitive; "" for the lines before any header, which is all of
// CLUSTER INFO): a map from each key:value line's key to its value. A
// line that is not key:value, or a key given twice, is an error, and so
// is a missing section.
func Section(text, name string) (map[string]string, error) {
	lines, err := Lines(text, name)
	if err != nil {
		return nil, err
	}
	return fields(name, lines)
}

// Field returns the value of field in the section of INFO text called
// section (e.g. redis_version or run_id in "server"; cluster_state in
// section "" of CLUSTER INFO). A missing field is an error.
func Field(text, section, field string) (string, error) {
	fields, err := Section(text, section)
	if err != nil {
		return "", err
	}
	return lookup(fields, section, field)
}

// Info is INFO's reply, parsed: the fields of each section, by the
// section's name in lower case; fields before any header (CLUSTER INFO's)
// are under "".
type Info map[string]map[string]string

// Parse parses every section of INFO text. A section that appears twice,
// a line that is not key:value or a key given twice in a section is an
// error.
func Parse(text string) (Info, error) {
	info := Info{}
	for _, s := range sections(text) {
		name := strings.ToLower(s.name)
		if _, dup := info[name]; dup {
			return nil, fmt.Errorf("%w: section %q appears twice", ErrMalformed, s.name)
		}
		f, err := fields(s.name, s.lines)
		if err != nil {
			return nil, err
		}
		info[name] = f
	}
	return info, nil
}

// Field returns the value of field in section (case-insensitive). A
// missing section or field is an error.
func (i Info) Field(section, field string) (string, error) {
	fields, ok := i[strings.ToLower(section)]
	if !ok {
		return "", fmt.Errorf("%w: no %q section", ErrMalformed, section)
	}
	return lookup(fields, section, field)
}

// fields reads key:value lines.
func fields(section string, lines []string) (map[string]string, error) {
	f := make(map[string]string, len(lines))
	for _, line := range lines {
		key, value, ok := strings.Cut(line, ":")
		if !ok || key == "" {
			return nil, fmt.Errorf("%w: line %q of section %q is not key:value", ErrMalformed, line, section)
		}
		if _, dup := f[key]; dup {
			return nil, fmt.Errorf("%w: %s given twice in section %q", ErrMalformed, key, section)
		}
		f[key] = value
	}
	return f, nil
}

func lookup(fields map[string]string, section, field string) (string, error) {
	v, ok := fields[field]
	if !ok {
		return "", fmt.Errorf("%w: %s section lacks %s", ErrMalformed, section, field)
	}
	return v, nil
}
