/**
 * Conversation text for the search measurement, made from a seed: the same seed gives the same text.
 * Words follow Zipf's law over a vocabulary of common English words and made-up technical terms, so a
 * few words are in almost every message and most are rare, as in real conversations with an agent.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { seededRandom } from "./seeded-random.ts";

/** The `=== <name>` sections of a file in bench/fixtures, each's text after its name's line, by name. */
export function fixtureSections(file: string): Map<string, string> {
  const sections = readFileSync(join(import.meta.dir, "..", "fixtures", file), "utf8")
    .split(/^=== /m)
    .slice(1);
  return new Map(sections.map((section) => [section.slice(0, section.indexOf("\n")).trim(), section.slice(section.indexOf("\n") + 1)]));
}

const COMMON = (
  "the of and to a in is it that for you this with on be as are was not have but or at by from an can if will file test we code function " +
  "error the use it value return type when should which then need one more all so change run add there new line case also like check " +
  "update just make what would now see here call first set data get because only some into its other does read write server session"
).split(" ");
const SYLLABLES = "ka ro mi tan ex por lin sta ver qu ad on il fen gra tho zu pel orb nix cal dri mor vek sul tra";

/** Rank 0 is the most frequent word. */
function vocabulary(size: number, random: () => number): string[] {
  const syllables = SYLLABLES.split(" ");
  const words = new Set(COMMON);
  while (words.size < size) {
    const count = 2 + Math.floor(random() * 3);
    let word = "";
    for (let index = 0; index < count; index++) word += syllables[Math.floor(random() * syllables.length)];
    words.add(word);
  }
  return [...words];
}

/** Draws words by Zipf's law (exponent 1) in O(1): a table in which each word fills its share of the slots. */
export class ConversationText {
  readonly words: string[];
  private readonly table: Uint32Array;
  private readonly random: () => number;

  constructor(seed: number, vocabularySize = 50_000, tableSize = 1 << 22) {
    this.random = seededRandom(seed);
    this.words = vocabulary(vocabularySize, this.random);
    const harmonic = this.words.reduce((sum, _word, rank) => sum + 1 / (rank + 1), 0);
    this.table = new Uint32Array(tableSize);
    let slot = 0;
    for (let rank = 0; rank < this.words.length && slot < tableSize; rank++) {
      const end = Math.min(tableSize, slot + Math.max(1, Math.round(tableSize / harmonic / (rank + 1))));
      this.table.fill(rank, slot, end);
      slot = end;
    }
    this.table.fill(this.words.length - 1, slot);
  }

  /** About `bytes` of sentences: capitalised, 6–24 words, now and then a comma or a code-like term. */
  message(bytes: number): string {
    const parts: string[] = [];
    let length = 0;
    while (length < bytes) {
      const count = 6 + Math.floor(this.random() * 19);
      let sentence = "";
      for (let index = 0; index < count; index++) {
        let word = this.words[this.table[Math.floor(this.random() * this.table.length)]!]!;
        if (index === 0) word = word[0]!.toUpperCase() + word.slice(1);
        else if (this.random() < 0.03) word = `\`${word}_${this.words[this.table[Math.floor(this.random() * this.table.length)]!]}\``;
        sentence += index === 0 ? word : (this.random() < 0.08 ? ", " : " ") + word;
      }
      sentence += this.random() < 0.15 ? "?\n" : ". ";
      parts.push(sentence);
      length += sentence.length;
    }
    return parts.join("");
  }

  /** A whole number in [0, below). */
  below(below: number): number {
    return Math.floor(this.random() * below);
  }
}
