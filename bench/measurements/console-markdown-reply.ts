/**
 * The reply of the console-markdown measurement: about 1 MB of markdown as a model writes a long answer
 * (headings, paragraphs with inline code, bold and links, lists, and fenced code blocks in common
 * languages), made the same every run from a seeded generator, and cut into chunks of roughly equal
 * size anywhere (inside words and fences), as a model streams.
 */
import { fixtureSections } from "../lib/conversation-text.ts";
import { seededRandom } from "../lib/seeded-random.ts";

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));

const NAMES = "session project harness reply chunk event prompt worker plugin machine token skill queue cache stream account".split(" ");
const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);
const plural = (word: string) => (word.endsWith("s") ? `${word}es` : word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`);

/** The code pieces of bench/fixtures/markdown-code.txt, by language. */
const codePieces = () =>
  new Map([...fixtureSections("markdown-code.txt")].map(([language, text]) => [language, text.split(/^---\n/m).map((piece) => piece.replace(/\n+$/, ""))]));

const fill = (template: string, name: string, number: number) =>
  template
    .replaceAll("{Name}s", capital(plural(name)))
    .replaceAll("{name}s", plural(name))
    .replaceAll("{Name}", capital(name))
    .replaceAll("{name}", name)
    .replaceAll("{NAME}", name.toUpperCase())
    .replaceAll("{n}", String(number));

/** A JSON document is one value, not pieces joined: a config of a few nested objects and lists. */
function jsonCode(random: Random, lines: number): string {
  const name = pick(random, NAMES);
  const body: string[] = [];
  while (body.length < lines - 2) {
    const key = pick(random, NAMES);
    const kind = between(random, 0, 3);
    const last = body.length >= lines - 8;
    if (kind === 0) body.push(`  "${key}Limit": ${between(random, 1, 5000)},`);
    else if (kind === 1) body.push(`  "${key}Url": "http://127.0.0.1:${between(random, 1024, 65535)}/v1/${plural(key)}",`);
    else if (kind === 2 || last) body.push(`  "${key}Enabled": ${random() < 0.5},`);
    else {
      body.push(`  "${key}": {`, `    "id": "${key}-${between(random, 1, 999)}",`, `    "tags": ["${pick(random, NAMES)}", "${pick(random, NAMES)}"],`);
      body.push(`    "retries": ${between(random, 0, 9)}`, "  },");
    }
  }
  body.push(`  "name": "${name}"`);
  return ["{", ...body, "}"].join("\n");
}

/** The languages of the blocks, in turn; some under their longer names, as models write both. */
const LANGUAGES = "ts:ts py:py sh:sh json:json go:go rust:rust typescript:ts css:css html:html diff:diff yaml:yaml js:js sql:sql bash:sh python:py"
  .split(" ")
  .map((pair) => ({ fence: pair.split(":")[0]!, pieces: pair.split(":")[1]! }));

/** A block of 20 to 40 lines (a piece that would pass 40 ends it once it has 20): whole pieces of one language, named as after its fence. */
function codeBlock(random: Random, pieces: Map<string, string[]>, index: number): { language: string; code: string } {
  const language = LANGUAGES[index % LANGUAGES.length]!;
  const lines = between(random, 20, 40);
  if (language.pieces === "json") return { language: language.fence, code: jsonCode(random, lines) };
  const available = pieces.get(language.pieces)!;
  const parts: string[] = [];
  let count = 0;
  // The first piece (imports, a header) opens the block; the others follow in a seeded order.
  for (let turn = 0; count < lines; turn++) {
    const template = turn === 0 ? available[0]! : pick(random, available.slice(1));
    const piece = fill(template, pick(random, NAMES), between(random, 2, 90));
    const pieceLines = piece.split("\n").length + (parts.length > 0 ? 1 : 0);
    if (count >= 20 && count + pieceLines > 40) break;
    parts.push(piece);
    count += pieceLines;
  }
  return { language: language.fence, code: parts.join("\n\n") };
}

const THINGS = ["store", "event log", "session list", "reply", "harness scan", "service worker", "prompt queue", "token check", "checkpoint", "SSE stream"];
const VERBS = ["reads", "keeps", "drops", "checks", "retries", "writes", "streams", "caches", "parses", "validates"];
const CODE_WORDS =
  "flush()|await load(id)|limit|AbortSignal|Map<string, Entry>|--port|ATRIUM_HOME|isGenerating|nextBefore|npm test|JSON.parse|res.status(404)|Err{Name}NotFound|git switch -c|WHERE state <> 'failed'|display: grid".split(
    "|",
  );

/** One sentence, sometimes with inline code, a bold phrase or a link. */
function sentence(random: Random): string {
  const name = pick(random, NAMES);
  const thing = pick(random, THINGS);
  const code = `\`${fill(pick(random, CODE_WORDS), name, between(random, 2, 90))}\``;
  const forms = [
    `The ${thing} ${pick(random, VERBS)} every ${name} once, so a second call with ${code} costs nothing.`,
    `When the ${name} is missing, ${code} answers at once instead of waiting for the ${thing}.`,
    `This keeps the ${thing} small: only the ${plural(name)} that changed since the last pass looked at again.`,
    `Note that ${code} is read before the ${thing} starts, which is why changing it later has no effect.`,
    `In practice the ${name} ${pick(random, VERBS)} about ${between(random, 2, 500)} entries a second on a laptop, and the ${thing} is rarely the bottleneck.`,
    `If you would rather keep the old behaviour, set ${code} in the config and restart the server.`,
    `The test below covers the case where the ${name} arrives **before** the ${thing} is ready.`,
    `See [the ${thing} notes](https://example.com/docs/${plural(name)}#${between(random, 1, 40)}) for why the ${name} is not retried forever.`,
    `Each ${name} ${pick(random, VERBS)} its own copy of ${code}, so two of them never share state.`,
    `That is a ${between(random, 2, 40)} % improvement on the ${thing}, measured over ${between(random, 3, 20)} runs.`,
    `I renamed the helper to ${code} because the old name suggested it ${pick(random, VERBS)} the ${thing} too.`,
    `Nothing else in the ${thing} depends on the order, so sorting the ${plural(name)} first is safe.`,
  ];
  return pick(random, forms);
}

const paragraph = (random: Random) => Array.from({ length: between(random, 2, 6) }, () => sentence(random)).join(" ");

function list(random: Random): string {
  const ordered = random() < 0.4;
  const items = between(random, 3, 7);
  const lines: string[] = [];
  for (let index = 1; index <= items; index++) {
    lines.push(`${ordered ? `${index}.` : "-"} ${sentence(random)}`);
    if (!ordered && random() < 0.2) lines.push(`  - ${sentence(random)}`);
  }
  return lines.join("\n");
}

/** A section stops short of its share by about this much: its last paragraph passes it by about as much. */
const PROSE_SLACK = 270;

const TOPICS = ["Reading", "Caching", "Retrying", "Streaming", "Checking", "Storing", "Cleaning up", "Testing", "Migrating", "Configuring"];

/**
 * `blocks` sections, each a heading, paragraphs and a list around one fenced code block, with prose
 * added evenly until the whole is about `bytes` long (ASCII, so characters are bytes).
 */
export function markdownReply(bytes: number, blocks: number, seed = 20261125): string {
  const random = seededRandom(seed);
  const pieces = codePieces();
  const code = Array.from({ length: blocks }, (_, index) => codeBlock(random, pieces, index));
  const intro = `Here is the whole change, section by section. ${paragraph(random)}`;
  const codeBytes = code.reduce((sum, block) => sum + block.code.length + block.language.length + 10, 0);
  const prosePerSection = (bytes - intro.length - codeBytes) / blocks;
  const sections = code.map((block, index) => {
    const name = pick(random, NAMES);
    const parts = [`## ${index + 1}. ${pick(random, TOPICS)} the ${plural(name)}`];
    let prose = parts[0]!.length;
    const add = (text: string) => {
      parts.push(text);
      prose += text.length + 2;
    };
    add(paragraph(random));
    if (random() < 0.3) add(`### The ${pick(random, THINGS)}`);
    add(list(random));
    add(`${paragraph(random)} Here is the ${block.language} for it:`);
    parts.push(`\`\`\`${block.language}\n${block.code}\n\`\`\``);
    // Prose after the code until the section has its share; never two lists in a row (they would be one).
    const after: string[] = [];
    let listLast = true;
    while (prose < prosePerSection - PROSE_SLACK) {
      const text: string = !listLast && random() < 0.25 ? list(random) : paragraph(random);
      listLast = text.startsWith("-") || /^\d+\. /.test(text);
      after.push(text);
      prose += text.length + 2;
    }
    return [...parts, ...after].join("\n\n");
  });
  return `${[intro, ...sections].join("\n\n")}\n`;
}

/** Cut into `count` pieces of about equal size, each cut moved at random by up to 40 % of a piece. */
export function streamChunks(text: string, count: number, seed = 7): string[] {
  const random = seededRandom(seed);
  const size = text.length / count;
  const cuts = [0];
  for (let index = 1; index < count; index++) cuts.push(Math.round((index + (random() - 0.5) * 0.8) * size));
  cuts.push(text.length);
  return cuts.slice(1).map((end, index) => text.slice(cuts[index], end));
}
