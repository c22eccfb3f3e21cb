// Element look-up and the small DOM steps both buyer pages (checkout, portal) take alike.

/** The page's element `#id`; a missing one is a mismatch of shell and script, so it throws. */
export function el<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`page element #${id} is missing`);
  return found as T;
}

export function show(node: HTMLElement, visible = true): void {
  node.hidden = !visible;
}

export function text(node: HTMLElement, value: string): void {
  node.textContent = value;
}

/** A message box of the shell: `#<id>` holding the message `#<id>-text` and the reference line `#<id>-ref`. */
export interface MessageBox {
  box: HTMLElement;
  /** Shows `message`, and `reference` (the request's, for support) when it is not empty. */
  show(message: string, reference: string): void;
}

export function messageBox(id: string): MessageBox {
  const box = el(id);
  const message = el(`${id}-text`);
  const ref = el(`${id}-ref`);
  return {
    box,
    show(value, reference) {
      text(message, value);
      text(ref, reference);
      show(ref, reference !== '');
      show(box);
    },
  };
}
