/** Folds ASCII letters only, as the server's search (SQLite's lower()) does, so both find the same records. */
const folded = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** Whether any of the texts holds the search, as the server's `q` decides. */
export const holdsText = (texts: string[], search: string): boolean => !search || texts.some((text) => folded(text).includes(folded(search)));
