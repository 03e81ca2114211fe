/**
 * A name usable as a folder and as part of a git branch name: lower-case letters, digits and single
 * dashes, at most `max` characters; `fallback` when nothing usable is left.
 */
export function slugify(text: string, fallback: string, max = 40): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // the accents NFKD split off: "é" becomes "e"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, max)
    .replace(/-+$/g, "");
  return slug.length > 0 ? slug : fallback;
}

/** `base`, or `base-2`, `base-3`, … : the first that `taken` does not refuse. */
export function firstFree(base: string, taken: (candidate: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}
