/** xterm.js's stylesheet, imported `with { type: "text" }`: its text, added as a constructed stylesheet. */
declare module "@xterm/xterm/css/xterm.css" {
  const css: string;
  export default css;
}
