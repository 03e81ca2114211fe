/** An image imported `with { type: "file" }`: its path, in the compiled binary's own file system too. */
declare module "*.png" {
  const path: string;
  export default path;
}
