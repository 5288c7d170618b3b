// The load benchmark's request: a realistic ~2 KB messages.upsert envelope, as the reference server sends it.
export const SECRET = "bench-webhook-secret";
export const PATH = "/gateway/webhook/sales";

const text = "Olá! Gostaria de saber o prazo de entrega do pedido 48213 e se é possível trocar o endereço. " +
  "Obrigado 🙏 ".repeat(2) + "x".repeat(1200);

export const BODY: string = JSON.stringify({
  event: "messages.upsert",
  instance: "sales",
  data: {
    key: {
      remoteJid: "123456789012345@lid",
      remoteJidAlt: "5511999999999@s.whatsapp.net",
      fromMe: false,
      id: "3EB0C7F3A1B2C3D4E5F6A7B8",
      addressingMode: "lid",
    },
    pushName: "Maria Souza",
    status: "DELIVERY_ACK",
    message: {
      conversation: text,
      messageContextInfo: {
        deviceListMetadata: {
          senderKeyHash: "k1HqPa8eKkFqQA==",
          senderTimestamp: "1760000000",
          recipientKeyHash: "9xY0bB==",
        },
        deviceListMetadataVersion: 2,
      },
    },
    contextInfo: null,
    messageType: "conversation",
    messageTimestamp: 1760000000,
    instanceId: "8d5e3f6a-1111-2222-3333-444455556666",
    source: "android",
  },
  destination: "http://127.0.0.1:8000/gateway/webhook/sales",
  date_time: "2025-10-21T11:40:39.123Z",
  sender: "5511000000000@s.whatsapp.net",
  server_url: "http://127.0.0.1:8080",
  apikey: null,
});
