import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../shared/api.ts";
import { CopyButton } from "../shared/copy-button.tsx";
import { DiffView } from "../shared/diff-view.tsx";
import { failureText } from "../shared/failure-text.ts";
import { Alert } from "../shared/use-action.tsx";
import { sessionHref } from "../shell/router.ts";
import { addToDraft } from "../sessions/use-draft.ts";
import { contentRequest, type FileHead, fileHead, type FilesPlace, filesPath, readText, sizeText, type TextRead, writeText } from "./file-api.ts";
import { FileLines } from "./file-lines.tsx";
import { TextEditor } from "./text-editor.tsx";
import type { FilesChange } from "./use-files-changes.ts";

/** A text larger than this is not drawn (its size is said): a phone would hold the page for seconds. */
const MAX_TEXT_SHOWN = 2 * 1024 * 1024;
/**
 * An image larger than this is not shown. The console's CSP allows images from itself and `data:` only
 * (not `blob:`), and the content route needs the bearer header an `<img src>` cannot send: the bytes
 * are read with the token and shown as a data URL, which costs a third more memory than they weigh.
 */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** What the viewer shows of a file. */
type Shown =
  | { kind: "text"; head: FileHead; read: TextRead }
  | { kind: "image"; head: FileHead; url: string }
  | { kind: "binary" | "too-large"; head: FileHead };

/** The ETag of what is shown: the text's as last read or saved, else the file's as first asked. */
const shownEtag = (shown: Shown) => (shown.kind === "text" ? shown.read.etag : shown.head.etag);

const isImage = (head: FileHead) => head.contentType.startsWith("image/");

const dataUrl = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("the image could not be read"));
    reader.readAsDataURL(blob);
  });

async function readShown(place: FilesPlace, path: string): Promise<Shown> {
  const head = fileHead(await contentRequest(filesPath(place, "/content", { path }), { method: "HEAD" }));
  if (isImage(head) && head.size <= MAX_IMAGE_BYTES) {
    const response = await contentRequest(filesPath(place, "/content", { path }), { method: "GET" });
    return { kind: "image", head, url: await dataUrl(await response.blob()) };
  }
  if (head.kind === "binary") return { kind: "binary", head };
  if (head.size > MAX_TEXT_SHOWN) return { kind: "too-large", head };
  const read = await readText(place, path);
  return { kind: "text", head: { ...head, etag: read.etag }, read };
}

/** The editor's state: the text being written, over the version read (its ETag); a refused save's version on disk. */
interface Editing {
  draft: string;
  etag: string;
  /** Set when a save was refused (412): what is on disk now. */
  theirs: TextRead | null;
}

/**
 * A file: text with line numbers and colours, an image, or a binary file said as such. Text can be edited in
 * place and saved over the version read (`If-Match`); when the file changed meanwhile (412) both versions are
 * shown and the user chooses. A change through the Files routes reads the file again, unless it is being
 * edited: then the editor says so, and keeps what was typed.
 */
export function FileView({ place, path, line, change }: { place: FilesPlace; path: string; line?: number; change: FilesChange | null }) {
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [changedOnDisk, setChangedOnDisk] = useState(false);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const [reads, setReads] = useState(0);
  const editButton = useRef<HTMLButtonElement>(null);
  /** Set when the editor closes (saved, cancelled, theirs taken): the focus goes back to Edit, not to the page's start. */
  const [refocus, setRefocus] = useState(false);
  useEffect(() => {
    if (!refocus || editing !== null) return;
    setRefocus(false);
    editButton.current?.focus();
  }, [refocus, editing]);

  useEffect(() => {
    let current = true;
    readShown(place, path).then(
      (read) => {
        if (!current) return;
        setShown(read);
        setError(null);
      },
      (failure: unknown) => current && setError(failureText(failure)),
    );
    return () => {
      current = false;
    };
  }, [path, reads]);

  useEffect(() => {
    if (!change || (change.path !== null && change.path !== path && change.fromPath !== path)) return;
    const changed = () => {
      if (editing && shown?.kind === "text" && editing.draft !== shown.read.text) setChangedOnDisk(true);
      else {
        setEditing(null);
        setReads((count) => count + 1);
      }
    };
    if (change.path !== null) {
      changed();
      return;
    }
    // The session's agent worked: only a file whose ETag moved is read again.
    let current = true;
    contentRequest(filesPath(place, "/content", { path }), { method: "HEAD" }).then(
      (response) => current && shown !== null && fileHead(response).etag !== shownEtag(shown) && changed(),
      () => current && changed(),
    );
    return () => {
      current = false;
    };
  }, [change]);

  const edit = () => {
    if (shown?.kind !== "text") return;
    setEditing({ draft: shown.read.text, etag: shown.read.etag, theirs: null });
    setStatus("");
  };

  const save = async (draft: string, etag: string) => {
    setBusy(true);
    try {
      const saved = await writeText(place, path, draft, etag);
      setShown((before) => (before?.kind === "text" ? { ...before, read: { text: draft, etag: saved } } : before));
      setEditing(null);
      setChangedOnDisk(false);
      setError(null);
      setStatus("Saved.");
      setRefocus(true);
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.status === 412)) {
        setError(failureText(failure));
        return;
      }
      // Changed on disk since it was read (an agent wrote it): show theirs against mine, and let the user choose.
      try {
        const theirs = await readText(place, path);
        setEditing({ draft, etag, theirs });
        setError(null);
      } catch (readFailure) {
        setError(failureText(readFailure));
      }
    } finally {
      setBusy(false);
    }
  };

  const takeTheirs = (theirs: TextRead) => {
    setShown((before) => (before?.kind === "text" ? { ...before, read: theirs } : before));
    setEditing(null);
    setChangedOnDisk(false);
    setStatus("Kept the version on disk.");
    setRefocus(true);
  };

  const mention = () => {
    if (!place.sessionId) return;
    addToDraft(place.sessionId, `@${path}`);
    location.hash = sessionHref(place.sessionId);
  };

  return (
    <div class="file-view">
      <Alert error={error} />
      <p class="visually-hidden" role="status">
        {status}
      </p>
      {shown === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : editing?.theirs ? (
        <Conflict
          path={path}
          mine={editing.draft}
          theirs={editing.theirs}
          busy={busy}
          keepMine={() => save(editing.draft, editing.theirs!.etag)}
          takeTheirs={() => takeTheirs(editing.theirs!)}
        />
      ) : editing ? (
        <form
          class="file-editor"
          onSubmit={(event) => {
            event.preventDefault();
            void save(editing.draft, editing.etag);
          }}
        >
          {changedOnDisk && (
            <p class="notice" role="alert">
              This file changed on disk since you opened it. Saving shows both versions to choose from.
            </p>
          )}
          <div class="file-actions">
            <button type="submit" disabled={busy}>
              Save
            </button>
            <button
              type="button"
              class="quiet-button"
              disabled={busy}
              onClick={() => {
                setEditing(null);
                setRefocus(true);
                if (changedOnDisk) setReads((count) => count + 1);
                setChangedOnDisk(false);
              }}
            >
              Cancel
            </button>
          </div>
          <TextEditor path={path} text={editing.draft} onChange={(draft) => setEditing((before) => before && { ...before, draft })} />
        </form>
      ) : (
        <>
          <div class="file-actions">
            <span class="quiet">{sizeText(shown.head.size)}</span>
            {shown.kind === "text" && (
              <button type="button" ref={editButton} onClick={edit}>
                Edit
              </button>
            )}
            {place.sessionId && (
              <button type="button" class="quiet-button" onClick={mention}>
                Mention in prompt
              </button>
            )}
          </div>
          <ShownFile shown={shown} path={path} line={line} />
        </>
      )}
    </div>
  );
}

function ShownFile({ shown, path, line }: { shown: Shown; path: string; line?: number }) {
  switch (shown.kind) {
    case "text":
      return <FileLines path={path} text={shown.read.text} line={line} />;
    case "image":
      return (
        <div class="file-image">
          <img src={shown.url} alt={path} />
        </div>
      );
    case "binary":
      return <p class="quiet">A binary file ({sizeText(shown.head.size)}): not shown.</p>;
    case "too-large":
      return <p class="quiet">Too large to show here ({sizeText(shown.head.size)}).</p>;
  }
}

/** A save refused because the file changed on disk: theirs against mine, and the three ways on. */
function Conflict({
  path,
  mine,
  theirs,
  busy,
  keepMine,
  takeTheirs,
}: {
  path: string;
  mine: string;
  theirs: TextRead;
  busy: boolean;
  keepMine(): void;
  takeTheirs(): void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="file-conflict" aria-labelledby="file-conflict-heading">
      <h3 id="file-conflict-heading" tabIndex={-1} ref={heading}>
        Changed on disk since you opened it
      </h3>
      <p>{path} was saved again after you opened it (by an agent or another client). Below: from that version, on disk, to yours.</p>
      <DiffView path={path} oldText={theirs.text} newText={mine} />
      <div class="file-actions">
        <button type="button" disabled={busy} onClick={keepMine}>
          Keep mine
        </button>
        <button type="button" class="quiet-button" disabled={busy} onClick={takeTheirs}>
          Take theirs
        </button>
        <CopyButton text={mine} label="Copy mine" />
      </div>
    </section>
  );
}
