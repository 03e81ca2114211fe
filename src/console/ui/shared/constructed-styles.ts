/**
 * The console's Content-Security-Policy (`style-src 'self'`) refuses `<style>` elements, and xterm.js
 * and CodeMirror write the styles they compute (cell sizes, the theme's colours) into such elements. A constructed
 * stylesheet is not refused, so the rules go there instead.
 */
export class ConstructedStyles {
  private readonly sheets: CSSStyleSheet[] = [];

  constructor(private readonly document: Document) {}

  /** Adds a stylesheet of `css` to the document. */
  add(css = ""): CSSStyleSheet {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    this.sheets.push(sheet);
    this.document.adoptedStyleSheets = [...this.document.adoptedStyleSheets, sheet];
    return sheet;
  }

  /**
   * Runs `create` with each `<style>` element it makes replaced by a stand-in: the text written to it
   * goes to a constructed stylesheet. The stand-in is an inert `<template>`, since even an empty
   * `<style>` in the page is refused.
   */
  capture(create: () => void): void {
    const document = this.document;
    const createElement = document.createElement;
    const styles = this;
    document.createElement = function (this: Document, tagName: string, options?: ElementCreationOptions) {
      if (tagName.toLowerCase() !== "style") return createElement.call(this, tagName, options);
      const standIn = createElement.call(this, "template");
      const sheet = styles.add();
      Object.defineProperty(standIn, "textContent", { get: () => "", set: (css: string) => sheet.replaceSync(css) });
      return standIn;
    } as typeof document.createElement;
    try {
      create();
    } finally {
      // The document's own method again (the stand-in was an own property over the prototype's).
      Reflect.deleteProperty(document, "createElement");
    }
  }

  /** Takes the stylesheets out of the document. */
  remove(): void {
    this.document.adoptedStyleSheets = this.document.adoptedStyleSheets.filter((sheet) => !this.sheets.includes(sheet));
  }
}
