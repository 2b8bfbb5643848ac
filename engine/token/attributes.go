package token

// Attributes are the conditions of a piece: measured exactly from a score at
// ingestion (every field set), or requested by a prompt (unset fields are
// left for the model to sample). They are the attribute prefix of the token
// sequence, the output of the prompt parser, and what evaluation checks
// adherence against.
type Attributes struct {
	TempoBPM float64 `json:"tempo_bpm,omitempty"` // 0: unspecified
	// Key: tonic pitch class 0 (C) … 11 (B), or -1 unspecified.
	KeyTonic int  `json:"key_tonic"`
	KeyMinor bool `json:"key_minor,omitempty"`
	// Meter: 0/0 unspecified.
	MeterNum int `json:"meter_num,omitempty"`
	MeterDen int `json:"meter_den,omitempty"`
	// Genre: a genre family of the vocabulary (GenreFamilies), "" unspecified.
	Genre string `json:"genre,omitempty"`
	// Programs: General MIDI programs 0–127 of the pitched instruments; nil
	// unspecified. Drums is set separately.
	Programs []int `json:"programs,omitempty"`
	Drums    *bool `json:"drums,omitempty"` // nil unspecified
	// Bars is the length in bars (in a training window of a version 2
	// vocabulary: the bars from the window's first bar to the piece's end);
	// 0 unspecified.
	Bars int `json:"bars,omitempty"`
	// Density: density bin index as the vocabulary defines it (notes per
	// quarter note in version 2, notes per bar in version 1); -1 unspecified.
	Density int `json:"density"`
	// Style: the style group (cluster of caption embeddings); -1 unspecified.
	Style int `json:"style"`
}

// Unspecified returns Attributes with every field unset.
func Unspecified() Attributes {
	return Attributes{KeyTonic: -1, Density: -1, Style: -1}
}
