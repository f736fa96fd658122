// What things are called on screen, written once: a button's label or a sheet's title (else
// its id), a toggle face's label (else Off / On), a sheet option's label (else its id).

/** What a button or sheet is called: its label (a sheet's title), else its id. */
export function title(obj) {
  return (obj && (obj.label || obj.title)) || (obj && obj.id) || "";
}

const DEFAULT_FACES = [{ label: "Off" }, { label: "On" }];

/** A toggle's two faces (the server's, else Off and On). */
export function facesOf(b) {
  return b && b.faces && b.faces.length === 2 ? b.faces : DEFAULT_FACES;
}

/** What face 0 or 1 of a toggle is called. */
export function faceLabel(b, face) {
  const f = facesOf(b)[face];
  return (f && f.label) || (face ? "On" : "Off");
}

/** What a sheet's option is called. */
export function optionLabel(o) {
  return o.label || o.id;
}
