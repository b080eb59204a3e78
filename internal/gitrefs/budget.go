package gitrefs

import (
	"context"
	"fmt"
	"time"
)

// WriteBudget is the least time left before a context's deadline for a
// write to start: objects, then the ref's lock, then its rename.
const WriteBudget = 30 * time.Millisecond

// CheckBudget fails when ctx has ended or ends too soon for a write to finish.
func CheckBudget(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < WriteBudget {
		return fmt.Errorf("%w: %v left before the deadline, too little to write", context.DeadlineExceeded, time.Until(dl).Round(time.Millisecond))
	}
	return nil
}
