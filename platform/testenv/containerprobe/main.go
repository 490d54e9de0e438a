// Command containerprobe tells `make test-containers` whether a Docker
// engine answers: exit 0 and one line naming the images the suite will
// start, or exit 3 and the one line saying containers were skipped (the
// suite then runs on the local services and kfake, as `make test`).
package main

import (
	"fmt"
	"os"

	"github.com/contrack/contrack/platform/testenv"
)

func main() {
	use, line := testenv.DecideContainers("1", testenv.ProbeDocker)
	if !use {
		fmt.Fprintln(os.Stderr, line)
		os.Exit(3)
	}
	fmt.Printf("testenv: a Docker engine answered: the suite runs on %s, %s and %s containers\n",
		testenv.KafkaImage, testenv.PostgresImage, testenv.ClickHouseImage)
}
