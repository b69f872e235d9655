//go:build race

package sim

// raceSamples is how many small samples TestProperties runs under the
// race detector, which makes the simulator about ten times slower (make
// test's unit pass runs with it; its full pass runs propertySamples).
const raceSamples = 40
