// Small binary fixtures, base64-encoded, shared by tools, resources and prompts.

/** A 1×1 PNG (the conformance suite's reference image). */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A WAV file holding one silent 16-bit sample (the conformance suite's reference audio). */
export const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
