import type { ImageInput } from "@knightcode/app-server-protocol";

/** An image waiting in the composer: what is sent, and what the thumbnail shows. */
export interface DraftImage {
  key: number;
  name: string;
  input: Extract<ImageInput, { data: string }>;
  /** A data: URL of the same bytes, for the thumbnail. */
  preview: string;
}

export interface Draft {
  text: string;
  images: DraftImage[];
}

/**
 * Drafts outlive the composer (it is rebuilt when another thread opens): the
 * text and images stay in memory for this page, and the text also in
 * sessionStorage, so a reload of the tab keeps it. Images stay out of
 * sessionStorage: they can be megabytes, past what it holds.
 */
const drafts = new Map<string, Draft>();
const KEY = (threadId: string) => `knightcode.draft.${threadId}`;

export function readDraft(threadId: string): Draft {
  const known = drafts.get(threadId);
  if (known) return known;
  let text = "";
  try {
    text = sessionStorage.getItem(KEY(threadId)) ?? "";
  } catch {
    // Storage refused (privacy mode): the draft lives in memory only.
  }
  return { text, images: [] };
}

export function saveDraft(threadId: string, draft: Draft): void {
  drafts.set(threadId, draft);
  try {
    if (draft.text) sessionStorage.setItem(KEY(threadId), draft.text);
    else sessionStorage.removeItem(KEY(threadId));
  } catch {
    // Full or refused: memory still has it.
  }
}
