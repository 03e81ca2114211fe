import { Lexer, type Token, type Tokens } from "marked";

/**
 * Markdown as the agents write it (GitHub-flavoured: headings, lists, task lists, tables, links, code),
 * parsed by marked and built as DOM nodes here. Every piece of text becomes a text node and raw HTML is
 * shown as the text it is, so nothing in a reply can run or style the page; links go only to http(s)
 * and mailto addresses.
 */
export function markdownNodes(markdown: string): Node[] {
  return blocks(new Lexer({ gfm: true }).lex(markdown));
}

/** A line of markdown (a plan's step): its words styled, without the paragraph around them. */
export function inlineMarkdownNodes(markdown: string): Node[] {
  const tokens = new Lexer({ gfm: true }).lex(markdown).filter((token) => token.type !== "space");
  const only = tokens[0];
  return tokens.length === 1 && only?.type === "paragraph" ? inline((only as Tokens.Paragraph).tokens) : blocks(tokens);
}

const SAFE_LINK = /^(https?:|mailto:)/i;

function element<K extends keyof HTMLElementTagNameMap>(tag: K, children: Node[] = [], className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children);
  return node;
}

const text = (value: string) => document.createTextNode(value);

function blocks(tokens: Token[]): Node[] {
  return tokens.flatMap((token) => block(token));
}

function block(token: Token): Node[] {
  switch (token.type) {
    case "space":
    case "def":
      return [];
    case "heading": {
      const heading = token as Tokens.Heading;
      return [element(`h${Math.min(6, Math.max(1, heading.depth))}` as "h1", inline(heading.tokens))];
    }
    case "paragraph":
      return [element("p", inline((token as Tokens.Paragraph).tokens))];
    case "code":
      return [codeBlockElement((token as Tokens.Code).text, ((token as Tokens.Code).lang ?? "").split(/\s/)[0] ?? "")];
    case "blockquote":
      return [element("blockquote", blocks((token as Tokens.Blockquote).tokens))];
    case "list":
      return [list(token as Tokens.List)];
    case "table":
      return [table(token as Tokens.Table)];
    case "hr":
      return [element("hr")];
    case "html":
      // Shown as written, never parsed as HTML.
      return [element("p", [text((token as Tokens.HTML).text)], "markdown-raw")];
    case "text": {
      const plain = token as Tokens.Text;
      return [element("p", plain.tokens ? inline(plain.tokens) : [text(plain.text)])];
    }
    case "checkbox":
      return inline([token]);
    default:
      return [element("p", [text(token.raw)])];
  }
}

function inline(tokens: Token[] | undefined): Node[] {
  return (tokens ?? []).flatMap((token): Node[] => {
    switch (token.type) {
      case "text": {
        const plain = token as Tokens.Text;
        return plain.tokens ? inline(plain.tokens) : [text(plain.text)];
      }
      case "escape":
        return [text((token as Tokens.Escape).text)];
      case "strong":
        return [element("strong", inline((token as Tokens.Strong).tokens))];
      case "em":
        return [element("em", inline((token as Tokens.Em).tokens))];
      case "del":
        return [element("del", inline((token as Tokens.Del).tokens))];
      case "codespan":
        return [element("code", [text((token as Tokens.Codespan).text)])];
      case "br":
        return [element("br")];
      case "link":
        return [link(token as Tokens.Link)];
      case "image": {
        // The page loads no image from elsewhere (its CSP): the picture is named, linked where safe.
        const image = token as Tokens.Image;
        return [link({ ...image, type: "link", tokens: [{ type: "text", raw: image.text, text: `🖼 ${image.text || image.href}` }] } as Tokens.Link)];
      }
      case "html":
        return [text((token as Tokens.HTML).text)];
      case "checkbox": {
        const box = element("input");
        box.type = "checkbox";
        box.checked = (token as Tokens.Checkbox).checked;
        box.disabled = true;
        return [box, text(" ")];
      }
      default:
        return [text(token.raw)];
    }
  });
}

function link(token: Tokens.Link): Node {
  const children = inline(token.tokens);
  if (!SAFE_LINK.test(token.href)) return element("span", children);
  const anchor = element("a", children);
  anchor.href = token.href;
  anchor.target = "_blank";
  anchor.rel = "noopener noreferrer";
  if (token.title) anchor.title = token.title;
  return anchor;
}

function list(token: Tokens.List): HTMLElement {
  const items = token.items.map((item) => {
    // A tight list's text sits in the item itself, not in paragraphs.
    const tight = (child: Token) => (child.type === "text" || child.type === "checkbox" ? inline([child]) : block(child));
    const li = element("li", item.loose ? blocks(item.tokens) : item.tokens.flatMap(tight));
    if (item.task) li.className = "task";
    return li;
  });
  if (!token.ordered) return element("ul", items);
  const ordered = element("ol", items);
  if (typeof token.start === "number" && token.start !== 1) ordered.start = token.start;
  return ordered;
}

function table(token: Tokens.Table): HTMLElement {
  const cell = (tag: "th" | "td", value: Tokens.TableCell) => {
    const node = element(tag, inline(value.tokens));
    if (value.align) node.style.textAlign = value.align;
    return node;
  };
  const head = element("thead", [
    element(
      "tr",
      token.header.map((value) => cell("th", value)),
    ),
  ]);
  const body = element(
    "tbody",
    token.rows.map((row) =>
      element(
        "tr",
        row.map((value) => cell("td", value)),
      ),
    ),
  );
  // Wide tables scroll on their own, not the page.
  return element("div", [element("table", [head, body])], "markdown-table");
}

/** A fenced block: its language named, a Copy button, and the code (coloured later, see highlight.ts). */
export function codeBlockElement(source: string, language: string): HTMLElement {
  const code = element("code", [text(source)]);
  if (language) code.dataset.language = language;
  const header = language ? [element("span", [text(language)], "code-language")] : [];
  // Plain http from another machine is no secure context: no clipboard, so no button that cannot work.
  if (navigator.clipboard) {
    const copy = element("button", [text("Copy")], "quiet-button small copy-code");
    copy.type = "button";
    copy.addEventListener("click", () => {
      void navigator.clipboard.writeText(source).then(
        () => (copy.textContent = "Copied"),
        () => (copy.textContent = "Copy failed"),
      );
    });
    header.push(copy);
  }
  return element("div", [...header, element("pre", [code])], "code-block");
}
