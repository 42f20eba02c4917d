/** Serialises form data (fields and files) as a multipart/form-data body for the guarded client. */
export async function encodeMultipart(form: FormData): Promise<{ body: Uint8Array; contentType: string }> {
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return { body: new Uint8Array(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}
