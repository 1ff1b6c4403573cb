import GatewayApp
import ServiceKit

await ServiceMain.run(.gateway, build: GatewayApp.build)
