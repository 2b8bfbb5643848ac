// Package text owns everything textual about music in AMT Studio:
//
//   - captions built from what is known of each piece (metadata tables, ABC
//     headers, OpenMSX title lists, sidecar .txt/.json files, titles in the
//     MIDI file, optional Wikipedia summaries) and its measured attributes
//     (Collector, PieceInfo, Caption);
//   - text embedders behind one interface: a built-in hashed n-gram embedder
//     that needs no weights (NewHashed) and a BERT-compatible encoder that
//     loads a Hugging Face BERT folder (LoadBERT; weights through
//     engine/safetensors);
//   - the prompt parser that turns a user's words into token.Attributes plus
//     mood and genre words (ParsePrompt).
//
// It is part of the engine: it imports engine/midi and engine/token and must
// never import app/, ui/ or storage/ (the store implements the SummaryCache
// interface declared here).
package text
