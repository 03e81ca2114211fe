/** Which page of a change list: files by path, `cursor` from the previous page's `next`. */
export interface ChangesPage {
  limit?: number;
  cursor?: string;
}

export const DEFAULT_CHANGES_PAGE = 200;
