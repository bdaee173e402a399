/**
 * Generated IACA-style XML bulk files for tests: as a stream of chunks, so
 * a file of hundreds of megabytes never exists in memory or on disk.
 */

/** One initial FileDetail, numbered `i`, about 1.3 KB. */
function fileDetail(i: number): string {
  const n = String(i).padStart(10, "0");
  const day = String(1 + (i % 28)).padStart(2, "0");
  return `  <FileDetail>
    <TransType Type="Initial"/>
    <FilingMethod Method="Electronic"/>
    <AmendmentType Type="NOType"/>
    <OriginalFileNumber>G${n}</OriginalFileNumber>
    <LapseDate>203001${day}</LapseDate>
    <FileNumber>G${n}</FileNumber>
    <FileDate>202501${day} 1030</FileDate>
    <FilingOffice>CO</FilingOffice>
    <AltFilingType AltType="NOAltType"/>
    <Debtors>
      <DebtorName>
        <Names>
          <OrganizationName>GENERATED ROCKY MOUNTAIN SUPPLY ${n} LLC</OrganizationName>
          <MailAddress>${100 + (i % 9000)} LARIMER ST STE ${i % 500}</MailAddress>
          <City>DENVER</City>
          <State>CO</State>
          <PostalCode>80202${String(i % 10000).padStart(4, "0")}</PostalCode>
          <Country>USA</Country>
        </Names>
      </DebtorName>
      <DebtorName>
        <Names>
          <IndividualName><LastName>MÜLLER</LastName><FirstName>JOSÉ</FirstName><MiddleName>${String.fromCharCode(65 + (i % 26))}</MiddleName></IndividualName>
          <MailAddress>${i % 700} MAPLE AVE</MailAddress>
          <City>GRAND JCT CO 81504</City>
        </Names>
      </DebtorName>
    </Debtors>
    <Secured>
      <Names>
        <OrganizationName>ROYAL BANK OF CANADA</OrganizationName>
        <MailAddress>200 BAY ST</MailAddress>
        <City>TORONTO</City>
        <State>ON</State>
        <PostalCode>M5J 2J5</PostalCode>
        <Country>CAN</Country>
      </Names>
    </Secured>
    <Collateral><ColText>ALL EQUIPMENT NOW OWNED OR HEREAFTER ACQUIRED, INCLUDING ITEM ${n}.</ColText></Collateral>
  </FileDetail>
`;
}

const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Document><Record><Results>\n<ProcessDate>20250131</ProcessDate>\n';
const TAIL = "</Results></Record></Document>\n";

/**
 * An XML bulk file of about `megabytes` MB, generated as it is read, in
 * chunks of about 64 KB. With `truncateAt` (bytes), it stops there.
 */
export function generatedXml(
  megabytes: number,
  truncateAt?: number,
): { stream: ReadableStream<Uint8Array>; records: number } {
  const encoder = new TextEncoder();
  const perRecord = encoder.encode(fileDetail(0)).length;
  const records = Math.ceil((megabytes * 1_048_576) / perRecord);
  let i = 0;
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      let text = i === 0 ? HEAD : "";
      while (text.length < 65_536 && i < records) text += fileDetail(i++);
      if (i >= records && text.length < 65_536) text += TAIL;
      let bytes = encoder.encode(text);
      if (truncateAt !== undefined && sent + bytes.length > truncateAt) bytes = bytes.slice(0, truncateAt - sent);
      sent += bytes.length;
      if (bytes.length > 0) controller.enqueue(bytes);
      if (i >= records || (truncateAt !== undefined && sent >= truncateAt)) controller.close();
    },
  });
  return { stream, records };
}
