//go:build !race

package sim

// raceSamples is propertySamples without the race detector.
const raceSamples = propertySamples
