// The "Look" part of the button form: colour swatches (or any colour), an icon from the bundled
// set, the size on the grid and the status line, with a live preview of the key.

import { el } from "./dom.js";
import { readableOn } from "./colour.js";
import { iconNames, iconSpan, setIcon } from "./icons.js";
import { field, input, toHex } from "./form.js";

const SWATCHES = [
  ["#d00000", "Red"], ["#f97316", "Orange"], ["#eab308", "Yellow"], ["#16a34a", "Green"],
  ["#0ea5e9", "Sky"], ["#2f6df6", "Blue"], ["#7c3aed", "Violet"], ["#db2777", "Pink"], ["#475569", "Slate"],
];
const SIZES = [["1x1", "1 × 1", "one cell"], ["2x1", "2 × 1", "two cells wide"], ["1x2", "1 × 2", "two cells tall"], ["2x2", "2 × 2", "two by two cells"]];

function radio(name, value, checked, label, extra = {}) {
  return el("label", { title: label, ...extra },
    el("input", { type: "radio", name, value, checked }),
    el("span.visually-hidden", { text: label }));
}

/** The colour swatches, plus "any colour" through a picker. */
function colourChoice(color, custom) {
  const picker = el("input.swatch-custom", { type: "color", name: "colorCustom", value: custom || "#2f6df6", "aria-label": "Pick any colour" });
  const swatches = el("div.swatches", { role: "radiogroup", "aria-label": "Colour" },
    radio("color", "", !color, "No colour", { class: "swatch swatch-none" }),
    ...SWATCHES.map(([c, name]) => {
      const label = radio("color", c, color === c, name, { class: "swatch" });
      label.style.setProperty("--swatch", c);
      return label;
    }),
    el("label.swatch.swatch-any", { title: "Any colour" },
      el("input", { type: "radio", name: "color", value: "custom", checked: !!custom, tabindex: "-1" }),
      picker));
  const anySwatch = swatches.querySelector(".swatch-any");
  const showCustom = () => {
    const on = swatches.querySelector('input[value="custom"]').checked;
    anySwatch.classList.toggle("chosen", on);
    anySwatch.style.setProperty("--swatch", picker.value);
  };
  showCustom();
  return { swatches, picker, showCustom };
}

/** The bundled icons (loaded once known; `loaded` runs then), and "none". */
function iconChoice(current, loaded) {
  const icons = el("div.icon-picker", { role: "radiogroup", "aria-label": "Icon" },
    el("label.icon-choice.icon-none", { title: "No icon" },
      el("input", { type: "radio", name: "icon", value: "", checked: !current }),
      el("span.icon-name", { text: "No icon" })));
  iconNames().then((names) => {
    const all = current && !names.includes(current) ? [...names, current] : names;
    icons.append(...all.map((n) => el("label.icon-choice", { title: n },
      el("input", { type: "radio", name: "icon", value: n, checked: current === n }),
      iconSpan(n, "icon-glyph"), el("span.icon-name", { text: n }))));
    loaded();
  });
  return icons;
}

function sizeChoice(current) {
  return el("div.segmented.size-seg", { role: "radiogroup", "aria-label": "Size" },
    ...SIZES.map(([v, l, long]) => el("label", { title: long },
      el("input", { type: "radio", name: "size", value: v, checked: (current || "1x1") === v, "aria-label": `${l}, ${long}` }),
      el("span", { "aria-hidden": "true" }, el("i.size-glyph", { dataset: { size: v } }), l))));
}

/** Returns {fieldset, read()} — read() gives the look fields to send (null clears). */
export function lookFields(b, isNew) {
  const color = toHex(b.color);
  const custom = color && !SWATCHES.some(([c]) => c === color) ? color : "";
  const { swatches, picker, showCustom } = colourChoice(color, custom);
  let repaint = () => {};
  const icons = iconChoice(b.icon, () => repaint());
  const sizes = sizeChoice(b.size);

  const status = input("status", b.status, { maxlength: 32, placeholder: "e.g. ON AIR, 21.5 °C" });

  const preview = el("div.look-preview", { "aria-hidden": "true" },
    el("div.preview-key", {}, iconSpan(b.icon, "key-icon"), el("span.preview-label"), el("span.key-status")));

  const fieldset = el("fieldset.look", {},
    el("legend", { text: "Look" }),
    el("div.look-grid", {},
      el("div.look-fields", {},
        el("div.field", { "data-field": "color" }, el("span.label", { text: "Colour" }), swatches),
        el("div.field", { "data-field": "size" }, el("span.label", { text: "Size on the grid" }), sizes),
        field("Status line", status, "Up to 32 characters, shown on the key. Other systems set it over the API or MQTT.")),
      preview),
    el("div.field", { "data-field": "icon" }, el("span.label", { text: "Icon" }), icons));

  const value = (form, name) => {
    const checked = form.querySelector(`input[name="${name}"]:checked`);
    return checked ? checked.value : "";
  };

  function paintPreview(form) {
    const key = preview.firstChild;
    let c = value(form, "color");
    if (c === "custom") c = picker.value;
    key.style.background = c || "";
    key.style.color = c ? readableOn(c) : "";
    key.classList.toggle("has-color", !!c);
    setIcon(key.querySelector(".key-icon"), value(form, "icon"));
    key.querySelector(".preview-label").textContent = form.elements.label.value.trim() || form.elements.id.value.trim() || "Label";
    const st = key.querySelector(".key-status");
    st.textContent = status.value.trim();
    st.hidden = !status.value.trim();
    const size = value(form, "size") || "1x1";
    key.dataset.size = size;
  }

  return {
    fieldset,
    bind(form) {
      picker.addEventListener("input", () => {
        swatches.querySelector('input[value="custom"]').checked = true;
        showCustom();
        paintPreview(form);
      });
      repaint = () => paintPreview(form);
      form.addEventListener("input", repaint);
      form.addEventListener("change", () => { showCustom(); repaint(); });
      repaint();
    },
    read(form) {
      const out = {};
      let c = value(form, "color");
      if (c === "custom") c = picker.value.toLowerCase();
      if (c) { if (c !== color) out.color = c; } else if (!isNew && b.color) out.color = null;
      const ic = value(form, "icon");
      if (ic) { if (ic !== b.icon) out.icon = ic; } else if (!isNew && b.icon) out.icon = null;
      const size = value(form, "size") || "1x1";
      if (size !== (b.size || "1x1")) out.size = size;
      const st = status.value.trim();
      if (st) { if (st !== b.status) out.status = st; } else if (!isNew && b.status) out.status = null;
      return out;
    },
  };
}
