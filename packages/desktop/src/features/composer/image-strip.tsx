import type { JSX } from "preact";
import { IconButton } from "../../ui/button.js";
import type { DraftImage } from "./drafts.js";

/** The images waiting to go with the message, each with its remove button. */
export function ImageStrip({ images, onRemove }: { images: DraftImage[]; onRemove: (key: number) => void }): JSX.Element | null {
  if (images.length === 0) return null;
  return (
    <ul class="composer-images" aria-label="Images to send">
      {images.map((image) => (
        <li key={image.key} class="composer-image">
          <img src={image.preview} alt={image.name} />
          <IconButton icon="close" label={`Remove image ${image.name}`} onClick={() => onRemove(image.key)} />
        </li>
      ))}
    </ul>
  );
}
