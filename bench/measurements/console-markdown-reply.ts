/**
 * The reply of the console-markdown measurement: about 1 MB of markdown as a model writes a long answer (headings,
 * paragraphs with inline code, bold and links, lists, and fenced code blocks in 12 languages), the same every run from
 * a seed, and cut into chunks of roughly equal size anywhere (inside words and fences), as a model streams.
 */
import { ConversationText } from "../lib/conversation-text.ts";
import { seededRandom } from "../lib/seeded-random.ts";

/** A unit of code per language, repeated with other names and numbers (`{Name}`, `{name}`, `{n}`) to fill a block; JSON's are members of one object. */
const UNITS: Record<string, string[]> = {
  ts: [
    "export async function load{Name}(id: string, limit = {n}): Promise<{Name}[]> {",
    '  const response = await fetch("/v1/{name}s/" + encodeURIComponent(id) + "?limit=" + limit);',
    '  if (!response.ok) throw new Error("GET /v1/{name}s answered " + response.status);',
    "  return ((await response.json()) as { items: {Name}[] }).items.filter((item) => item.state !== 'failed');",
    "}",
  ],
  js: [
    "app.get('/api/{name}s/:id', async (req, res) => {",
    "  const {name} = await db.{name}s.findOne({ id: req.params.id, limit: {n} });",
    "  if (!{name}) return res.status(404).json({ error: 'not found' });",
    "  res.json({name});",
    "});",
  ],
  py: [
    "def load_{name}s(path: Path, limit: int = {n}) -> list[{Name}]:",
    '    """Reads every {name} from a JSON lines file, skipping broken lines."""',
    "    with path.open(encoding='utf-8') as handle:",
    "        return [{Name}(**json.loads(line)) for line in handle if line.strip()][:limit]",
  ],
  sh: [
    "for file in src/**/*.ts; do",
    '  grep -q "{name}" "$file" && echo "found in $file"',
    "done",
    "curl -fsSL \"http://127.0.0.1:7433/v1/{name}s?limit={n}\" | jq '.[] | {id, title}'",
  ],
  json: ['  "{name}{n}": {', '    "url": "http://127.0.0.1:{n}/v1/{name}s",', '    "enabled": true,', '    "tags": ["{name}", "bench"]', "  },"],
  go: [
    "func (s *Store) Get{Name}(ctx context.Context, id string) (*{Name}, error) {",
    "\ts.mu.RLock()",
    "\tdefer s.mu.RUnlock()",
    "\tif item, ok := s.items[id]; ok && item.Retries < {n} {",
    "\t\treturn item, nil",
    "\t}",
    '\treturn nil, fmt.Errorf("get %q: %w", id, Err{Name}NotFound)',
    "}",
  ],
  rust: [
    "pub fn count_{name}s(items: &[{Name}]) -> HashMap<&str, usize> {",
    "    let mut counts = HashMap::with_capacity({n});",
    "    for item in items {",
    "        *counts.entry(item.title.as_str()).or_insert(0) += 1;",
    "    }",
    "    counts",
    "}",
  ],
  css: [
    ".{name}-row {",
    "  display: grid;",
    "  grid-template-columns: repeat(auto-fill, minmax({n}rem, 1fr));",
    "  border-bottom: 1px solid var(--border);",
    "}",
  ],
  html: [
    '<section class="{name}-list" aria-label="{Name}s">',
    '  <button type="button" data-id="{name}-{n}">Open {name}</button>',
    '  <p class="quiet">No {name}s yet.</p>',
    "</section>",
  ],
  diff: [
    "@@ -{n},6 +{n},7 @@ export function load{Name}(id: string) {",
    "   const {name} = cache.get(id);",
    "-  if (!{name}) return undefined;",
    "+  if (!{name}) return fetch{Name}(id);",
    "   return {name};",
  ],
  yaml: ["{name}:", "  image: atrium/{name}:{n}", "  restart: unless-stopped", "  environment:", "    - ATRIUM_HOME=/data/{name}s"],
  sql: [
    "SELECT id, title, COUNT(*) AS {name}s",
    "FROM {name}_items",
    "WHERE state <> 'failed' AND retries < {n}",
    "GROUP BY id, title",
    "ORDER BY {name}s DESC;",
  ],
};

/** The languages of the blocks, in turn; some under their longer names, as models write both. */
const FENCES = "ts:ts py:py sh:sh json:json go:go rust:rust typescript:ts css:css html:html diff:diff yaml:yaml js:js sql:sql bash:sh python:py"
  .split(" ")
  .map((pair) => pair.split(":") as [string, string]);

/** A section stops short of its share by about this much: its last paragraph passes it by about as much. */
const PROSE_SLACK = 360;

/**
 * `blocks` sections, each a heading, a paragraph, a list and a fenced block of 20–40 lines (units of its language
 * with seeded names), then paragraphs and lists until the whole is about `bytes` long (ASCII, so characters are bytes).
 */
export function markdownReply(bytes: number, blocks: number, seed = 20261125): string {
  const text = new ConversationText(seed);
  const word = () => text.words[text.below(2_000)]!.replace(/\W/g, "") || "entry";
  const fill = (line: string, name: string, n: number) =>
    line
      .replaceAll("{Name}", name[0]!.toUpperCase() + name.slice(1))
      .replaceAll("{name}", name)
      .replaceAll("{n}", String(n));
  let paragraphs = 0;
  /** Sentences of seeded words with code-like terms; every third paragraph a bold phrase, every fifth a link. */
  const paragraph = () => {
    const words = text.message(200 + text.below(400)).split(" ");
    const at = text.below(words.length - 2);
    if (++paragraphs % 3 === 0) words.splice(at, 2, `**${words[at]} ${words[at + 1]}**`);
    else if (paragraphs % 5 === 1) words[at] = `[${words[at]}](https://example.com/docs/${word()})`;
    return words.join(" ").trim();
  };
  const list = () => {
    const marker = text.below(5) < 2 ? (index: number) => `${index + 1}.` : () => "-";
    const items = Array.from({ length: 3 + text.below(5) }, (_, index) => `${marker(index)} ${text.message(60 + text.below(120)).trim()}`);
    return items.join("\n");
  };
  const code = Array.from({ length: blocks }, (_, index) => {
    const [fence, language] = FENCES[index % FENCES.length]!;
    const unit = UNITS[language]!;
    const lines = language === "json" ? ["{"] : [];
    for (const size = 20 + text.below(21); lines.length < 20 || lines.length + unit.length <= size; )
      lines.push(...unit.map((line) => fill(line, word(), 2 + text.below(89))));
    if (language === "json") lines.push('  "version": 1', "}");
    return { fence, code: lines.join("\n") };
  });
  const intro = `Here is the whole change, section by section. ${paragraph()}`;
  const share = (bytes - intro.length - code.reduce((sum, block) => sum + block.code.length + block.fence.length + 10, 0)) / blocks;
  const sections = code.map((block, index) => {
    const parts = [`## ${index + 1}. ${text.message(30).split(/[.?]/)[0]}`, paragraph(), ...(text.below(10) < 3 ? [`### The ${word()}`] : []), list()];
    parts.push(`${paragraph()} Here is the ${block.fence} for it:`);
    let prose = parts.join("\n\n").length;
    parts.push(`\`\`\`${block.fence}\n${block.code}\n\`\`\``);
    // Prose after the code until the section has its share; never two lists in a row (they would be one).
    for (let listLast = true; prose < share - PROSE_SLACK; ) {
      const next: string = !listLast && text.below(4) === 0 ? list() : paragraph();
      listLast = next.startsWith("-") || /^\d+\. /.test(next);
      parts.push(next);
      prose += next.length + 2;
    }
    return parts.join("\n\n");
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
