// Package snapshot owns the recall snapshot's file format: the reader
// (File: header and table of contents checked at Open, dictionary blocks,
// postings, documents and the summary table read in parts and checked
// against their own checksums, through a memory map where the system has
// them, with faults on a map turned into errors by FaultsAsErrors) and the
// writer (Encode, SetTokens). It knows nothing of analysis or ranking: the
// terms, their frequencies and the documents' lengths come from package
// index, which writes the file, keeps the delta beside it, brings both
// forward to the stores' tips and ranks from them (index/snapdelta.go,
// index/snapsync.go); a Stamp ties a file to the analysis and mapping it
// was written with. Only index imports it.
//
// The snapshot is a second, compact cache of the index: one file holding
// what ranking needs (per-term postings with document lengths, the
// memories' canonical JSON), laid out so that a recall reads only the
// header, a small table of contents, the dictionary blocks and postings of
// its own terms, and the JSON of the memories it returns. It lets a process
// that links no engine (the hook binary) rank exactly like the bleve index
// and the scan (the same corpus: same terms, same quantized lengths, same
// counts) without reading every blob of a store. It records the ref tips it
// reflects and is brought forward by tree diffs in plain Go (index/snapsync.go),
// atomically replaced each time; deleting it is always safe.
//
// Layout (integers little-endian, offsets from the start of the file):
//
//	0   magic "GMSNAP\x00\n"
//	8   u32 version (snapshotFormat*1000 + Stamp.Mapping, index.MappingVersion)
//	12  u32 CRC-32 of bytes 16-64 and of the table of contents
//	16  u64 file length
//	24  u32 documents, u32 terms, u64 total term count
//	40  u64 offset and u32 length of the table of contents, u64 offset of the document table
//	60  u32 Stamp.Analysis (index.AnalysisPrint, a CRC-32C of the thesaurus,
//	    whose phrases are part of the analysis)
//	64  data: each document's key followed by its JSON; each term's postings
//	    (uvarint document delta, frequency and length as scoring reads it,
//	    quantized like bleve's norm)
//	    document table, 20 bytes a document, ascending by key: u64 offset,
//	    u32 key length, u32 JSON length, u32 CRC-32 of key and JSON
//	    dictionary blocks of snapBlock terms, ascending: per term uvarint
//	    length and the term, uvarint postings offset, length, document
//	    frequency and CRC-32
//	    summary table, a document after another in the document table's
//	    order: key, type, creation and end of validity (Unix seconds, 0:
//	    none), what list and stats read instead of decoding every memory
//	    table of contents: uvarint-counted tips (store key, commit); the
//	    CRC-32 of each block of snapBlock documents of the table; uvarint-
//	    counted dictionary blocks (offset, length, CRC-32, first term); the
//	    summary table's offset, length and CRC-32
//
// The header and the table of contents are checked when the file is
// opened, the file's length against the header (truncation), and every
// block, memory and postings list against its own checksum when it is
// read: a failed check is ErrUnusable. A missing, truncated, corrupt or
// other-version snapshot is rebuilt from the stores (by index); one whose
// tips differ from the refs is brought forward first, so it never answers
// for another state of the stores.
package snapshot
