// What the panel is doing, shared by the grid, the keys and the sheets: edit mode on or off,
// whether this session may edit at all (a press token may not), and the editor's entry points
// (installed by the app, so the keys do not import the editor).

export const mode = {
  editing: false,
  canEdit: true,
  kiosk: false,
  openEditor: () => {},
  createInGroup: () => {},
  showDeliveries: () => {},
};
