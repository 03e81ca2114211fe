const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** An opaque identifier: a type prefix and 20 random base-32 characters (100 bits), e.g. `ses_…`. */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return `${prefix}_${out}`;
}
