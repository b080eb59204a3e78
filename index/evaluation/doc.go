// Package evaluation owns the eval harness: it runs recall over labelled
// datasets and measures it. Run runs the project's own eval
// (fixtures/eval: imagined projects, alone and beside unrelated memories,
// at both operating points); RunSets runs recall sets of the shared format
// per source, beside a plain BM25 reference. Each report is formatted
// (Format, FormatSets) and held to its baseline (Baseline,
// SetBaseline: floors that a run may not fall under). git mem eval and the
// baseline tests (TestEvalBaseline, TestSetsBaseline) are its users;
// fixtures/eval/README.md says what the evals measure.
//
// It ranks through index's public API only: Recall (through the snapshot,
// when the run has a directory), or an index.Scan built once per store, and
// an index.Tuning for the ablations. The datasets themselves (their files
// and how they are written into a store) are index/evaluation/dataset's,
// which index's own tests read too.
package evaluation
