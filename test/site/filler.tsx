/** `lines` paragraphs of filler: a test page long enough to scroll, whatever else it holds. Test routes only. */
export function Filler({ lines }: { lines: number }) {
  return (
    <>
      {Array.from({ length: lines }, (_, index) => (
        <p key={index}>Filler line {index + 1}.</p>
      ))}
    </>
  )
}
