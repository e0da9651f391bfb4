package linearize

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// input is a porcupine operation's input: a step and the partition
// (segment) it is checked in.
type input struct {
	step *step
	part int
}

// The model's state is the set of leases inside, as a string of sorted
// little-endian uint32 lease numbers: comparable with ==, cheap to hash.

func holdersOf(state string) int { return len(state) / 4 }

func holds(state string, lease int) bool {
	for i := 0; i+4 <= len(state); i += 4 {
		if binary.LittleEndian.Uint32([]byte(state[i:i+4])) == uint32(lease) {
			return true
		}
	}
	return false
}

func leasesOf(state string) []int {
	out := make([]int, 0, len(state)/4)
	for i := 0; i+4 <= len(state); i += 4 {
		out = append(out, int(binary.LittleEndian.Uint32([]byte(state[i:i+4]))))
	}
	return out
}

func stateOf(leases []int) string {
	leases = slices.Clone(leases)
	slices.Sort(leases)
	b := make([]byte, 0, 4*len(leases))
	for _, l := range leases {
		b = binary.LittleEndian.AppendUint32(b, uint32(l))
	}
	return string(b)
}

func withLease(state string, lease int) string { return stateOf(append(leasesOf(state), lease)) }

func withoutLease(state string, lease int) string {
	return stateOf(slices.DeleteFunc(leasesOf(state), func(l int) bool { return l == lease }))
}

// model is the sequential specification both views share: a key holds a
// set of leases, at most limit of them (1: a mutual-exclusion lock; N: a
// counting semaphore). A begin needs room and adds its lease, an end needs
// its lease inside and removes it, a middle needs its lease inside, an
// instant needs room, a gone needs its lease out; an initial step sets the
// set a segment starts with.
// Partitions are the segments (package doc), named by the inputs.
func model(limit int) porcupine.Model {
	return porcupine.Model{
		Partition: partitionBySegment,
		Init:      func() any { return "" },
		Step: func(state, in, _ any) (bool, any) {
			s, st := state.(string), in.(input).step
			switch st.kind {
			case begin:
				if holdersOf(s) >= limit || holds(s, st.lease) {
					return false, s
				}
				return true, withLease(s, st.lease)
			case end:
				if !holds(s, st.lease) {
					return false, s
				}
				return true, withoutLease(s, st.lease)
			case middle:
				return holds(s, st.lease), s
			case instant:
				return holdersOf(s) < limit, s
			case gone:
				return !holds(s, st.lease), s
			case initial:
				return s == "", stateOf(st.holders)
			}
			return false, s
		},
		Hash: func(state any) uint64 {
			h := fnv.New64a()
			h.Write([]byte(state.(string)))
			return h.Sum64()
		},
		DescribeOperation: func(in, _ any) string { return describeStep(in.(input).step) },
		DescribeState: func(state any) string {
			ls := leasesOf(state.(string))
			if len(ls) == 0 {
				return "free"
			}
			names := make([]string, len(ls))
			for i, l := range ls {
				names[i] = fmt.Sprintf("L%d", l)
			}
			return fmt.Sprintf("held by %s (%d of %d)", strings.Join(names, ", "), len(ls), limit)
		},
		DescribeOperationMetadata: func(info any) string {
			if info == nil {
				return ""
			}
			return fmt.Sprint(info)
		},
	}
}

func describeStep(st *step) string {
	if st.kind == initial {
		names := make([]string, len(st.holders))
		for i, l := range st.holders {
			names[i] = fmt.Sprintf("L%d", l)
		}
		return "inside at the segment's start: " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s L%d (%s: %s %s)", st.kind, st.lease, kindMeaning[st.kind], st.op.Op, st.op.Outcome)
}

var kindMeaning = [...]string{begin: "takes a place", middle: "still held", end: "leaves",
	instant: "takes a place, may expire at once", gone: "found lost", initial: "initial"}

// partitionBySegment groups operations by their input's partition, in
// order of first appearance.
func partitionBySegment(ops []porcupine.Operation) [][]porcupine.Operation {
	at := make(map[int]int)
	var parts [][]porcupine.Operation
	for _, op := range ops {
		p := op.Input.(input).part
		i, ok := at[p]
		if !ok {
			i = len(parts)
			at[p] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], op)
	}
	return parts
}

// operations are steps as porcupine operations of partition part; with
// describe, each carries the recorded operation for the visualization.
func operations(steps []step, part, initClient int, describe bool) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(steps))
	for i := range steps {
		st := &steps[i]
		client := st.process
		var meta any
		if describe {
			meta = st.op.String()
		}
		if st.kind == initial {
			client, meta = initClient, nil
		}
		ops[i] = porcupine.Operation{ClientId: client, Input: input{step: st, part: part},
			Call: st.call, Return: st.ret, Metadata: meta}
	}
	return ops
}
