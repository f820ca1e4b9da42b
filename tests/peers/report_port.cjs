// Preloaded into a Node peer (NODE_OPTIONS=--require) started on PORT=0:
// reports the port the kernel gave it, so a test never picks one itself.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") {
      process.stderr.write(`mcpscope-test: listening on 127.0.0.1:${a.port}\n`);
    }
  });
  return listen.apply(this, args);
};
