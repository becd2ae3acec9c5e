// Sign in with a browser wallet (EIP-1193): ask the server for the message for this
// address, have the wallet sign it, post it, reload. Without a wallet the button stays
// hidden and the address form and paste form below do the same without script.
(function () {
  "use strict";
  var button = document.getElementById("wallet-sign-in");
  if (!button || !window.ethereum) { return; }
  button.hidden = false;
  button.addEventListener("click", function () {
    var wallet = window.ethereum;
    wallet.request({ method: "eth_requestAccounts" }).then(function (accounts) {
      var address = accounts[0];
      return fetch("/api/v1/account/nonce?address=" + encodeURIComponent(address))
        .then(function (r) { return r.json(); })
        .then(function (challenge) {
          return wallet.request({ method: "personal_sign", params: [challenge.message, address] })
            .then(function (signature) {
              return fetch("/api/v1/account/login", {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({ message: challenge.message, signature: signature })
              });
            });
        });
    }).then(function () { window.location.reload(); });
  });
})();
