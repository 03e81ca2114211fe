/**
 * A script of its own that the console loads on first need, which hands itself over on `globalThis`
 * (read by `handedOver`). The address is made at run time so the bundler leaves the import alone.
 */
export function lazyScript<T>(path: string, handedOver: () => T | undefined, name: string): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= import(new URL(path, location.href).href)
      .then(() => {
        const loaded = handedOver();
        if (!loaded) throw new Error(`${name} did not start`);
        return loaded;
      })
      .catch((failure: unknown) => {
        // The next use tries again.
        loading = undefined;
        throw failure;
      });
    return loading;
  };
}
