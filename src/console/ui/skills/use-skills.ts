import { useEffect, useRef, useState } from "preact/hooks";
import type { SkillsListing } from "../../../schemas/skills.ts";
import { api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { followThenRead } from "../shared/event-stream.ts";

const readListing = () => api<SkillsListing>("GET", "/v1/skills");

/**
 * The skills listing, read again whenever the server says skills changed (`skills.changed`) and when
 * asked (the folders are plain files a person can change with no event). `show` applies a listing a
 * change answered with at once.
 */
export function useSkills() {
  const [listing, setListing] = useState<SkillsListing | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Reads can answer out of order: a listing is shown only when nothing started after it was shown already.
  const started = useRef(0);
  const shownTicket = useRef(0);

  const showTicketed = (ticket: number, fresh: SkillsListing) => {
    if (ticket < shownTicket.current) return;
    shownTicket.current = ticket;
    setListing(fresh);
  };
  const show = (fresh: SkillsListing) => showTicketed(++started.current, fresh);
  const reload = async () => {
    const ticket = ++started.current;
    showTicketed(ticket, await readListing());
  };

  useEffect(() => {
    const reloadQuietly = () =>
      reload().then(
        () => setError(null),
        (failure) => setError(failureText(failure)),
      );
    const firstRead = () => reload().then(() => setError(null));
    return followThenRead({ kinds: ["skills.changed"], onEvents: () => void reloadQuietly(), onProblem: setError }, firstRead, setError);
  }, []);

  return { listing, error, show, reload };
}
