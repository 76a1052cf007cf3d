/** ASCII and ISO 8859-1 (Latin-1): every byte is the code point of the same number. */
export const LATIN1_TO_UNICODE: readonly number[] = Array.from({ length: 256 }, (_, byte) => byte);

/** ASCII's bytes: the first 128 of Latin-1. */
export const ASCII_LIMIT = 128;
