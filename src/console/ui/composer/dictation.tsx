import { useEffect, useRef, useState } from "preact/hooks";

/** The part of the Web Speech API the button uses (Chrome and Safari name the class webkitSpeechRecognition). */
interface Recognition {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  onresult: ((event: { resultIndex: number; results: ArrayLike<ArrayLike<{ transcript: string }> & { isFinal: boolean }> }) => void) | null;
  onend: (() => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  start(): void;
  stop(): void;
}

type RecognitionClass = new () => Recognition;

const recognitionClass = (): RecognitionClass | undefined => {
  const speech = globalThis as { SpeechRecognition?: RecognitionClass; webkitSpeechRecognition?: RecognitionClass };
  return speech.SpeechRecognition ?? speech.webkitSpeechRecognition;
};

/** Words that say why dictation stopped, for the errors a person can do something about. */
const ERRORS: Record<string, string> = {
  "not-allowed": "The browser was not allowed to use the microphone.",
  "service-not-allowed": "The browser was not allowed to use the microphone.",
  "audio-capture": "No microphone was found.",
  network: "Dictation needs the network (the browser's speech service).",
};

/**
 * Dictation with the browser's own speech recognition (no vendor key): each phrase it is sure of is handed
 * to `onText`, into the composer, where it can be edited before it is sent. Not drawn where the browser
 * has none (Firefox).
 */
export function DictationButton({ onText }: { onText: (text: string) => void }) {
  const [listening, setListening] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const recognition = useRef<Recognition | null>(null);
  // Results come after later renders: they go to the composer's text as it is then.
  const hand = useRef(onText);
  hand.current = onText;
  useEffect(() => () => recognition.current?.stop(), []);
  const Speech = recognitionClass();
  if (!Speech) return null;

  const toggle = () => {
    if (recognition.current) return recognition.current.stop();
    const listener = new Speech();
    listener.lang = navigator.language;
    listener.continuous = true;
    listener.interimResults = false;
    listener.onresult = (event) => {
      for (let index = event.resultIndex; index < event.results.length; index++) {
        const result = event.results[index]!;
        if (result.isFinal) hand.current(result[0]!.transcript.trim());
      }
    };
    listener.onerror = (event) => setProblem(ERRORS[event.error] ?? null);
    listener.onend = () => {
      recognition.current = null;
      setListening(false);
    };
    recognition.current = listener;
    setProblem(null);
    setListening(true);
    listener.start();
  };

  return (
    <>
      {/* Its pressed state says whether it listens (the page's one polite region is for a reply's end). */}
      <button type="button" class="quiet-button dictate" aria-pressed={listening} onClick={toggle}>
        Dictate
      </button>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
