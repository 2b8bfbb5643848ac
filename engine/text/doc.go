// Package text owns everything textual about music in AMT Studio:
//
//   - captions built from what is known of each piece (metadata tables, ABC
//     headers, OpenMSX title lists, sidecar .txt/.json files, titles in the
//     MIDI file, optional Wikipedia summaries) and its measured attributes
//     (Collector, PieceInfo, Caption); from the corpora's metadata.csv
//     columns also the era or style, the kind of piece, the instruments and
//     the composer's dates, the genre family they imply (PieceInfo.Family)
//     and the voices' program where the metadata names it
//     (PieceInfo.Revoice; metadata.go);
//   - text embedders behind one interface: a built-in hashed n-gram embedder
//     that needs no weights (NewHashed) and a BERT-compatible encoder that
//     loads a Hugging Face BERT folder (LoadBERT; weights through
//     engine/safetensors);
//   - the prompt parser that turns a user's words into token.Attributes plus
//     mood and genre words (ParsePrompt), and what the other words mean
//     (meaning.go): a vocabulary of moods on valence and arousal, dynamics,
//     tempo words in the languages musicians use, ensembles, scenes, uses,
//     styles and eras (lexicon.go), with the words it does not know read
//     through a synonym table built from WordNet 3.0 at build time
//     (wordnet_table.go, scripts/wordnet); Prompt.Resolve draws what the
//     words imply as defaults for a seed, each with its source, and
//     ShapeVelocities carries dynamics to the notes (why shaping and not a
//     model attribute: meaning.go).
//
// It is part of the engine: it imports engine/midi and engine/token and must
// never import app/, ui/ or storage/ (the store implements the SummaryCache
// interface declared here).
package text
