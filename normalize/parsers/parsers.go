// Package parsers names the parser of every source format: the one table
// the normaliser, the poller and the tests read the carriers' formats by.
package parsers

import (
	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/cosco"
	"github.com/contrack/contrack/normalize/iftsta"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/tnt12"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/schemas/carriers"
)

// All maps every source format to its parser.
func All() map[carriers.Format]normalize.Parser {
	return map[carriers.Format]normalize.Parser{
		carriers.FormatTNT22:  tnt22.Parse,
		carriers.FormatTNT12:  tnt12.Parse,
		carriers.FormatIFTSTA: iftsta.Parse,
		carriers.FormatCOSCO:  cosco.Parse,
		carriers.FormatPushed: pushed.Parse,
		carriers.FormatTNT3:   tnt3.Parse,
		// 3.0 pushes: events refused at the push (the carrier was told) are skipped.
		carriers.FormatPushedTNT3: tnt3.ParsePushed,
	}
}
