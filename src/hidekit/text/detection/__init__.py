"""Finding PHI in text (Presidio's analyzer): tokenizer, recognizers, CRF features and decoding,
boundary repairs, allow/deny lists, bounded windows, the detector and its training."""
