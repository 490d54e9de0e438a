package journey

import (
	"testing"

	"github.com/contrack/contrack/schemas/carriers"
)

// TestOwnerCodesInferTheirCarrier: the boxes the sandbox generates for a
// booking or bill carry owner codes that carrier inference maps back to the
// journey's carrier (or marks ambiguous, as a leasing company's).
func TestOwnerCodesInferTheirCarrier(t *testing.T) {
	for scac, owners := range ownerCodes {
		for _, o := range owners {
			g := carriers.GuessCarrier("container", CompleteContainer(o+"123456"))
			if g.SCAC != scac && !g.Ambiguous {
				t.Errorf("%s boxes of %s infer %+v", o, scac, g)
			}
		}
	}
}
