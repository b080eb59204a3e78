// Package dataset owns the eval's data: the project's own labelled
// datasets (a directory of projects, each memories.jsonl and
// queries.jsonl, and the unrelated memories of distractors/), the recall
// sets of the shared format (one JSON file a set, their source the
// directory they sit in, split into tune and test by a hash of the set and
// the query), and how a dataset is written into a store: one commit, each
// memory under a deterministic id (ID) and dated from its age before
// Epoch, replaced memories closed when their replacement was written.
//
// It imports gitstore only, not index, so that index's own tests (the
// confidence's fit, the corpora's agreement) read the same data the eval
// harness (index/evaluation) runs.
package dataset
