/** The server-sent events wire format: text cut into lines, lines gathered into frames (event, id, data). */

export interface Frame {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * A parser fed decoded text as it arrives: calls `onFrame` for each complete frame that carries data or an event
 * name, and `onRetry` for the server's `retry:` hint. Comments and unknown fields are skipped.
 */
export function createFrameParser(onFrame: (frame: Frame) => void, onRetry: (ms: number) => void) {
  let buffer = '';
  let frame: Frame = { id: undefined, event: 'message', data: '' };
  let hasData = false;

  function line(text: string): void {
    if (text === '') {
      if (hasData || frame.event !== 'message') onFrame(frame);
      frame = { id: undefined, event: 'message', data: '' };
      hasData = false;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      frame.data = hasData ? `${frame.data}\n${value}` : value;
      hasData = true;
    } else if (field === 'event') frame.event = value;
    else if (field === 'id') frame.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  }

  return {
    push(text: string): void {
      buffer += text;
      let newline = buffer.search(/\r\n|\r|\n/);
      while (newline >= 0) {
        const next = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        newline = buffer.search(/\r\n|\r|\n/);
        line(next);
      }
    },
  };
}
